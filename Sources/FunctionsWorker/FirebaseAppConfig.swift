import CloudFunctions
import Foundation

/// The Firebase app's configuration as `FIREBASE_CONFIG` gives it to a deployed function: JSON
/// inline when the value starts with `{`, else the path of a JSON file; the fields
/// `projectId`, `databaseURL`, `storageBucket` and `locationId` are read.
public struct FirebaseAppConfig: Sendable, Hashable {
    /// The project id.
    public var projectID: String?
    /// The default Realtime Database instance's URL.
    public var databaseURL: URL?
    /// The default Cloud Storage bucket.
    public var storageBucket: String?
    /// The default location of the project's resources.
    public var locationID: String?

    /// Creates a configuration.
    public init(projectID: String? = nil, databaseURL: URL? = nil, storageBucket: String? = nil, locationID: String? = nil) {
        self.projectID = projectID
        self.databaseURL = databaseURL
        self.storageBucket = storageBucket
        self.locationID = locationID
    }

    /// Reads the value of `FIREBASE_CONFIG`.
    ///
    /// - Throws: ``FirebaseAppConfigError`` for a file that cannot be read, text that is not a
    ///   JSON object, a field that is not a string, or a `databaseURL` that is not an http(s) URL.
    public init(variable value: String) throws(FirebaseAppConfigError) {
        let text = value.trimmingCharacters(in: .whitespacesAndNewlines)
        let data: Data
        let origin: String
        if text.hasPrefix("{") {
            data = Data(text.utf8)
            origin = "FIREBASE_CONFIG"
        } else {
            origin = "FIREBASE_CONFIG's file \(text)"
            guard let contents = FileManager.default.contents(atPath: text) else {
                throw FirebaseAppConfigError("\(origin) cannot be read")
            }
            data = contents
        }
        guard let json = try? JSONValue(parsing: data), json.objectValue != nil else {
            throw FirebaseAppConfigError("\(origin) is not a JSON object")
        }
        func field(_ name: String) throws(FirebaseAppConfigError) -> String? {
            switch json[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value.isEmpty ? nil : value
            case let other?: throw FirebaseAppConfigError("\(origin): \(name) must be a string, not \(other.serialized())")
            }
        }
        projectID = try field("projectId")
        storageBucket = try field("storageBucket")
        locationID = try field("locationId")
        if let url = try field("databaseURL") {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                parsed.host?.isEmpty == false
            else { throw FirebaseAppConfigError("\(origin): databaseURL '\(url)' is not an http(s) URL") }
            databaseURL = parsed
        }
    }

    /// The configuration `FIREBASE_CONFIG` holds; `nil` when it is unset or empty.
    public static func from(_ environment: [String: String]) throws(FirebaseAppConfigError) -> FirebaseAppConfig? {
        guard let value = environment["FIREBASE_CONFIG"], !value.isEmpty else { return nil }
        return try FirebaseAppConfig(variable: value)
    }
}

/// `FIREBASE_CONFIG` or another setting of the Admin clients is not valid; the message says how.
public struct FirebaseAppConfigError: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
