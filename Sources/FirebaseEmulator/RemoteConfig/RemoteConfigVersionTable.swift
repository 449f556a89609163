import CloudFunctions
import Foundation
import GRDB

/// The SQLite table of Remote Config template versions (schema `remote-config-v1`).
///
/// One row per published version of each project's namespace: the version metadata as JSON (what
/// `listVersions` reads) and the full template with its version as JSON (what `get` and
/// `rollback` read). The newest row of a namespace is its current template.
enum RemoteConfigVersionTable {
    /// How many versions each namespace keeps; older ones are deleted on publish.
    static let retainedVersions: Int64 = 300

    static let schema = StoreSchema(name: "remote-config-v1") { db in
        try db.execute(sql: """
            CREATE TABLE remote_config_versions (
                project TEXT NOT NULL,
                namespace TEXT NOT NULL,
                version_number INTEGER NOT NULL,
                update_time REAL NOT NULL,
                version BLOB NOT NULL,
                template BLOB NOT NULL,
                PRIMARY KEY (project, namespace, version_number)
            ) WITHOUT ROWID;
            """)
    }

    /// The newest version number of a namespace, 0 when it never published.
    static func latestNumber(_ db: GRDB.Database, project: String, namespace: RemoteConfigNamespace) throws -> Int64 {
        try Int64.fetchOne(
            db,
            sql: "SELECT MAX(version_number) FROM remote_config_versions WHERE project = ? AND namespace = ?",
            arguments: [project, namespace.rawValue]
        ) ?? 0
    }

    /// Stores a published template (its `version` filled in) and deletes the versions that fall out
    /// of the retention window.
    static func insert(_ db: GRDB.Database, project: String, namespace: RemoteConfigNamespace,
        template: RemoteConfigTemplate) throws
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let version = template.version ?? TemplateVersion(versionNumber: 0)
        let number = template.versionNumber
        try db.execute(
            sql: """
                INSERT INTO remote_config_versions (project, namespace, version_number, update_time, version, template)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [project, namespace.rawValue, number, version.updateTime?.timeIntervalSince1970 ?? 0,
                try encoder.encode(version), try encoder.encode(template)]
        )
        try db.execute(
            sql: "DELETE FROM remote_config_versions WHERE project = ? AND namespace = ? AND version_number <= ?",
            arguments: [project, namespace.rawValue, number - retainedVersions]
        )
    }

    /// One stored version's template, or `nil` when it was never published or was deleted.
    static func template(_ db: GRDB.Database, project: String, namespace: RemoteConfigNamespace,
        versionNumber: Int64) throws -> RemoteConfigTemplate?
    {
        let data = try Data.fetchOne(
            db,
            sql: """
                SELECT template FROM remote_config_versions
                WHERE project = ? AND namespace = ? AND version_number = ?
                """,
            arguments: [project, namespace.rawValue, versionNumber]
        )
        return try data.map { try JSONDecoder().decode(RemoteConfigTemplate.self, from: $0) }
    }

    /// The stored versions' metadata numbered at most `upTo`, newest first.
    static func versions(_ db: GRDB.Database, project: String, namespace: RemoteConfigNamespace,
        upTo: Int64) throws -> [TemplateVersion]
    {
        let decoder = JSONDecoder()
        return try Data.fetchAll(
            db,
            sql: """
                SELECT version FROM remote_config_versions
                WHERE project = ? AND namespace = ? AND version_number <= ?
                ORDER BY version_number DESC
                """,
            arguments: [project, namespace.rawValue, upTo]
        ).map { try decoder.decode(TemplateVersion.self, from: $0) }
    }

    /// The current template of every namespace that ever published, keyed by project and namespace.
    static func currentTemplates(_ db: GRDB.Database) throws -> [RemoteConfigService.Key: RemoteConfigTemplate] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT project, namespace, template FROM remote_config_versions AS v
                WHERE version_number = (
                    SELECT MAX(version_number) FROM remote_config_versions AS w
                    WHERE w.project = v.project AND w.namespace = v.namespace)
                """
        )
        var result: [RemoteConfigService.Key: RemoteConfigTemplate] = [:]
        let decoder = JSONDecoder()
        for row in rows {
            let key = RemoteConfigService.Key(project: row["project"], namespace: .init(rawValue: row["namespace"]))
            result[key] = try decoder.decode(RemoteConfigTemplate.self, from: row["template"] as Data)
        }
        return result
    }
}
