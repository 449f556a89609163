import CloudFunctions
import Foundation
import GRDB
import Synchronization

extension RemoteConfigService {
    /// Every stored version of every namespace of this project, oldest first, as
    /// `[{"namespace": ..., "template": {...}}]` (for `emulators:export`).
    public func exportVersions() throws -> JSONValue {
        try store.read { db in try exportVersions(in: db) }
    }

    /// ``exportVersions()`` inside a transaction of the store (the emulator's export of all
    /// services at one point in time).
    func exportVersions(in db: GRDB.Database) throws -> JSONValue {
        .array(try Row.fetchAll(
            db,
            sql: """
                SELECT namespace, template FROM remote_config_versions WHERE project = ?
                ORDER BY namespace, version_number
                """,
            arguments: [project]
        ).map { row in
            let template: Data = row["template"]
            return ["namespace": .string(row["namespace"]), "template": try JSONValue(parsing: template)]
        })
    }

    /// Replaces every stored version of this project (for `emulators:import`); emits nothing.
    ///
    /// - Throws: `INVALID_ARGUMENT` naming `file` for a malformed entry; nothing changes then.
    func importVersions(_ versions: JSONValue, file: String, in db: GRDB.Database) throws {
        guard case .array(let entries) = versions else {
            throw ServiceError(.invalidArgument, "\(file): expected an array of versions")
        }
        try db.execute(sql: "DELETE FROM remote_config_versions WHERE project = ?", arguments: [project])
        for (index, entry) in entries.enumerated() {
            guard let name = entry["namespace"]?.stringValue, let json = entry["template"] else {
                throw ServiceError(.invalidArgument, "\(file): version \(index) needs a namespace and a template")
            }
            let template: RemoteConfigTemplate
            do {
                template = try RemoteConfigTemplate.decode(from: json.serializedData())
            } catch {
                throw ServiceError(.invalidArgument, "\(file): version \(index): \(error)")
            }
            guard template.versionNumber > 0 else {
                throw ServiceError(.invalidArgument, "\(file): version \(index) has no version number")
            }
            try RemoteConfigVersionTable.insert(
                db,
                project: project,
                namespace: RemoteConfigNamespace(rawValue: name),
                template: template
            )
        }
    }

    /// Reloads the current templates after an import.
    func reloadFromStore() throws {
        let current = try store.read { db in try RemoteConfigVersionTable.currentTemplates(db) }
        state.withLock { $0.current = current }
    }
}
