import ArgumentParser
import CloudFunctions
import Foundation
import ProcessSupport

/// `functions emulators:env`: the variables that point clients at the running emulators.
struct EmulatorsEnv: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulators:env",
        abstract: "Print export lines that point Firebase and Google clients at the running emulators.",
        discussion: """
            Example: eval "$(functions emulators:env)". Lists FIREBASE_DATABASE_EMULATOR_HOST, \
            FIREBASE_AUTH_EMULATOR_HOST, CLOUD_TASKS_EMULATOR_HOST, FUNCTIONS_EMULATOR_URL, the project, and \
            FIRESTORE_EMULATOR_HOST and PUBSUB_EMULATOR_HOST while Google's emulators run (see GET /emulators).
            """
    )

    @OptionGroup var target: EmulatorOptions

    func run() async throws {
        let api = try target.client()
        let addresses = try await api.send("GET", "/emulators").json()
        for line in Self.exports(addresses, base: api.base, project: api.project) { print(line) }
    }

    /// The export lines for the addresses `GET /emulators` answered.
    static func exports(_ addresses: JSONValue, base: URL, project: String) -> [String] {
        func address(_ name: String) -> String? {
            guard let host = addresses[name]?["host"]?.stringValue, let port = addresses[name]?["port"]?.numberValue
            else { return nil }
            return "\(HostPort(host: host, port: Int(port)))"
        }
        var variables: [(String, String)] = []
        if let database = address("database") { variables.append(("FIREBASE_DATABASE_EMULATOR_HOST", database)) }
        if let auth = address("auth") { variables.append(("FIREBASE_AUTH_EMULATOR_HOST", auth)) }
        if let tasks = address("tasks") { variables.append(("CLOUD_TASKS_EMULATOR_HOST", tasks)) }
        variables.append(("FUNCTIONS_EMULATOR_URL", base.absoluteString))
        if let firestore = address("firestore") { variables.append(("FIRESTORE_EMULATOR_HOST", firestore)) }
        if let pubsub = address("pubsub") { variables.append(("PUBSUB_EMULATOR_HOST", pubsub)) }
        variables += [("GCLOUD_PROJECT", project), ("GOOGLE_CLOUD_PROJECT", project)]
        return variables.map { "export \($0.0)=\(ShellWord.quoted($0.1))" }
    }
}
