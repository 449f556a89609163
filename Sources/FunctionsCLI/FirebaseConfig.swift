import CloudFunctions
import Foundation

/// What `emulators:start --config firebase.json` takes from a Firebase project file: the
/// address (`emulators.functions.host/port`; every service shares it here), the Remote Config
/// template to start with (`remoteconfig.template`), the database rules file, and whether
/// Google's Firestore and Pub/Sub emulators start too (`emulators.firestore`, `emulators.pubsub`).
struct FirebaseConfig {
    var host: String?
    var port: Int?
    /// The template file, resolved against the config file's folder.
    var remoteConfigTemplate: URL?
    /// The rules file named by `database.rules`, if any.
    var databaseRules: URL?
    /// The Realtime Database instance `database.instance` names (the first entry's, when
    /// `database` is a list of instances).
    var databaseInstance: String?
    /// Whether `emulators.firestore` and `emulators.pubsub` are there: Google's emulators start
    /// with this one (on ports of their own; their `port` settings are not used).
    var startsFirestore = false
    var startsPubSub = false

    /// Reads and checks a firebase.json.
    init(contentsOf file: URL) throws {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: Data(contentsOf: file))
        } catch {
            throw CLIError("cannot read \(file.path) as JSON: \(error)")
        }
        guard json.objectValue != nil else { throw CLIError("\(file.path) must hold a JSON object") }
        startsFirestore = json["emulators"]?["firestore"] != nil
        startsPubSub = json["emulators"]?["pubsub"] != nil
        let emulator = json["emulators"]?["functions"]
        host = emulator?["host"]?.stringValue
        if let port = emulator?["port"] {
            guard let number = port.numberValue ?? port.stringValue.flatMap(Double.init), number == number.rounded(),
                (0...65535).contains(number)
            else {
                throw CLIError(
                    "\(file.path): emulators.functions.port must be a port number, not \(port.serialized())")
            }
            self.port = Int(number)
        }
        let folder = file.deletingLastPathComponent()
        if let template = json["remoteconfig"]?["template"] {
            guard let path = template.stringValue, !path.isEmpty else {
                throw CLIError("\(file.path): remoteconfig.template must be a file name")
            }
            remoteConfigTemplate = URL(fileURLWithPath: path, relativeTo: folder).standardizedFileURL
        }
        let database = json["database"]?.arrayValue?.first ?? json["database"]
        if let instance = database?["instance"] {
            guard let name = instance.stringValue, !name.isEmpty,
                name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
            else {
                throw CLIError("\(file.path): database.instance must be an instance name, not \(instance.serialized())")
            }
            databaseInstance = name
        }
        databaseRules = json["database"]?["rules"]?.stringValue.map {
            URL(fileURLWithPath: $0, relativeTo: folder).standardizedFileURL
        }
    }
}
