import CloudEvents
import CloudFunctions
import Foundation

extension Emulator {
    /// The version of the export layout written by ``export(to:)``.
    public static let exportFormatVersion = 1

    /// Writes the whole state to a directory of JSON files, like `firebase emulators:export`:
    /// `emulator-export.json` (format, project, contents), `remote-config.json` (every stored
    /// version), `database/<instance>.json` (one tree per database instance), `auth/users.json`
    /// (with bcrypt hashes, so imported users can still sign in), `messaging.json` (devices,
    /// subscription history, messages, inboxes) and `analytics.json`.
    public func export(to directory: URL) throws {
        let files = FileManager.default
        try files.createDirectory(at: directory.appendingPathComponent("database"), withIntermediateDirectories: true)
        try files.createDirectory(at: directory.appendingPathComponent("auth"), withIntermediateDirectories: true)
        let namespaces = database.namespaces()
        for namespace in namespaces {
            let file = directory.appendingPathComponent("database/\(namespace).json")
            try write(database.export(namespace: namespace), to: file)
        }
        try write(remoteConfig.exportVersions(), to: directory.appendingPathComponent("remote-config.json"))
        try write(JSONValue(encoding: auth.exportUsers()), to: directory.appendingPathComponent("auth/users.json"))
        try write(messaging.exportState(), to: directory.appendingPathComponent("messaging.json"))
        try write(analytics.exportState(), to: directory.appendingPathComponent("analytics.json"))
        let metadata: JSONValue = [
            "version": .number(Double(Self.exportFormatVersion)),
            "project": .string(project),
            "exportedAt": .string(RFC3339Timestamp.string(from: clock.now)),
            "databaseInstances": .array(namespaces.map(JSONValue.string)),
        ]
        try write(metadata, to: directory.appendingPathComponent("emulator-export.json"))
    }

    /// Replaces the state with an export written by ``export(to:)`` (for
    /// `emulators:start --import`). Emits no events.
    ///
    /// Every file is read and checked before anything changes, so a malformed export leaves
    /// the current state as it was: Remote Config, messaging, analytics and the users are then
    /// replaced in one transaction (colliding users refuse it whole), and the database
    /// instances after it, each in its own.
    /// - Throws: `INVALID_ARGUMENT` naming the file at fault.
    public func importState(from directory: URL) throws {
        let metadata = try read(directory, "emulator-export.json")
        guard metadata["version"]?.numberValue == Double(Self.exportFormatVersion) else {
            throw ServiceError(.invalidArgument, 
                "emulator-export.json: unsupported export version \(metadata["version"]?.serialized() ?? "none")"
            )
        }
        let instances = metadata["databaseInstances"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var trees: [(String, JSONValue)] = []
        for instance in instances {
            do {
                try DatabaseService.validate(namespace: instance)
            } catch {
                throw ServiceError(.invalidArgument, "emulator-export.json: '\(instance)' is not a database instance name")
            }
            let file = "database/\(instance).json"
            let tree = try read(directory, file)
            do {
                _ = try DatabaseTree(tree, now: clock.now)
            } catch {
                throw ServiceError(.invalidArgument, "\(file): \(error.message)")
            }
            trees.append((instance, tree))
        }
        let versions = try read(directory, "remote-config.json")
        let messagingState = try read(directory, "messaging.json")
        let analyticsState = try read(directory, "analytics.json")
        let users: [AuthUser]
        do {
            users = try read(directory, "auth/users.json").decode(as: [AuthUser].self)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(.invalidArgument, "auth/users.json: \(error)")
        }

        _ = try store.write { transaction in
            try remoteConfig.importVersions(versions, file: "remote-config.json", in: transaction.db)
            try messaging.importState(messagingState, file: "messaging.json", in: transaction.db)
            try analytics.importState(analyticsState, file: "analytics.json", in: transaction.db)
            try auth.importExported(users, in: transaction.db)
        }
        for instance in database.namespaces() where !instances.contains(instance) {
            try database.importTree(namespace: instance, value: .null)
        }
        for (instance, tree) in trees {
            try database.importTree(namespace: instance, value: tree)
        }
        try remoteConfig.reloadFromStore()
        try messaging.reloadFromStore()
    }

    private func write(_ value: JSONValue, to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(value).write(to: url, options: .atomic)
    }

    private func read(_ directory: URL, _ file: String) throws -> JSONValue {
        let url = directory.appendingPathComponent(file)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ServiceError(.invalidArgument, "\(file): missing from the export in \(directory.path)")
        }
        do {
            return try JSONValue(parsing: data)
        } catch {
            throw ServiceError(.invalidArgument, "\(file): not valid JSON")
        }
    }
}
