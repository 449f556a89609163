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
    ///
    /// The state is read at one point in time, between two commits: the database's trees on the
    /// store's writer, the rest from a snapshot of that commit (writes go on meanwhile). Two
    /// instances whose names differ only in case get files of their own
    /// (`database/<instance>.2.json` for the second), so that the export also holds on a disk
    /// that ignores case, as macOS's usually does.
    public func export(to directory: URL) async throws {
        let files = FileManager.default
        try files.createDirectory(at: directory.appendingPathComponent("database"), withIntermediateDirectories: true)
        try files.createDirectory(at: directory.appendingPathComponent("auth"), withIntermediateDirectories: true)
        // On the store's writer no other write commits, and the database's trees in memory are
        // those of the last commit (each write updates them before the next one runs).
        let (trees, (versions, users, messagingState, analyticsState)) = try await store.readAtOneCommit(
            capture: database.trees
        ) { [remoteConfig, auth, messaging, analytics] db in
            (try remoteConfig.exportVersions(in: db), try auth.exportUsers(in: db), try messaging.exportState(in: db),
             try analytics.exportState(in: db))
        }
        var databaseFiles: [String: JSONValue] = [:]
        var taken: [String: Int] = [:]
        for (namespace, snapshot) in trees {
            let tree = DatabaseService.rendered(snapshot)
            let folded = namespace.lowercased()
            taken[folded, default: 0] += 1
            // `.` is not allowed in an instance's name, so a suffix after one cannot be another's.
            let file = taken[folded] == 1 ? "database/\(namespace).json" : "database/\(namespace).\(taken[folded]!).json"
            try write(tree, to: directory.appendingPathComponent(file))
            databaseFiles[namespace] = .string(file)
        }
        try write(versions, to: directory.appendingPathComponent("remote-config.json"))
        try write(JSONValue(encoding: users), to: directory.appendingPathComponent("auth/users.json"))
        try write(messagingState, to: directory.appendingPathComponent("messaging.json"))
        try write(analyticsState, to: directory.appendingPathComponent("analytics.json"))
        let metadata: JSONValue = [
            "version": .number(Double(Self.exportFormatVersion)),
            "project": .string(project),
            "exportedAt": .string(RFC3339Timestamp.string(from: clock.now)),
            "databaseInstances": .array(trees.map { .string($0.namespace) }),
            "databaseFiles": .object(databaseFiles),
        ]
        try write(metadata, to: directory.appendingPathComponent("emulator-export.json"))
    }

    /// Replaces the state with an export written by ``export(to:)`` (for
    /// `emulators:start --import`). Emits no events.
    ///
    /// Every file is read and checked before anything changes, and everything is then replaced
    /// in one transaction: a malformed export, or users that collide, leave the current state
    /// as it was.
    /// - Throws: `INVALID_ARGUMENT` naming the file at fault.
    public func importState(from directory: URL) async throws {
        let metadata = try read(directory, "emulator-export.json")
        guard metadata["version"]?.numberValue == Double(Self.exportFormatVersion) else {
            throw ServiceError(.invalidArgument, 
                "emulator-export.json: unsupported export version \(metadata["version"]?.serialized() ?? "none")"
            )
        }
        let instances = metadata["databaseInstances"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var trees: [(String, DatabaseTree)] = []
        for instance in instances {
            do {
                try DatabaseService.validate(namespace: instance)
            } catch {
                throw ServiceError(.invalidArgument, "emulator-export.json: '\(instance)' is not a database instance name")
            }
            // Exports written before instances had their files listed name them after the instance.
            let file = metadata["databaseFiles"]?[instance]?.stringValue ?? "database/\(instance).json"
            guard file.hasPrefix("database/"), !file.contains(".."), file.hasSuffix(".json") else {
                throw ServiceError(.invalidArgument, "emulator-export.json: '\(file)' is not a database file of the export")
            }
            let tree = try read(directory, file)
            do {
                trees.append((instance, try DatabaseTree(tree, now: clock.now)))
            } catch {
                throw ServiceError(.invalidArgument, "\(file): \(error.message)")
            }
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

        _ = try await store.write { [self, trees] transaction in
            try remoteConfig.importVersions(versions, file: "remote-config.json", in: transaction.db)
            try messaging.importState(messagingState, file: "messaging.json", in: transaction.db)
            try analytics.importState(analyticsState, file: "analytics.json", in: transaction.db)
            try auth.importExported(users, in: transaction.db)
            let empty = try DatabaseTree(.null, now: clock.now)
            for instance in database.namespaces() where !instances.contains(instance) {
                try database.importTree(namespace: instance, tree: empty, in: &transaction)
            }
            for (instance, tree) in trees {
                try database.importTree(namespace: instance, tree: tree, in: &transaction)
            }
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
