import CloudFunctions
import Foundation
import GRDB

/// The SQLite tables of the Analytics service (schema `analytics-v1`) and the queries on them.
///
/// `analytics_events` is the event log (one row per event, its ``AnalyticsEvent`` JSON, in log order);
/// `analytics_event_names` the distinct names each app instance has logged (for the 500-name limit);
/// `analytics_user_properties` the user properties currently set on each app instance.
enum AnalyticsStorage {
    static let schema = StoreSchema(name: "analytics-v1") { db in
        try db.execute(sql: """
            CREATE TABLE analytics_events (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                project TEXT NOT NULL,
                app_id TEXT NOT NULL,
                app_instance_id TEXT NOT NULL,
                name TEXT NOT NULL,
                event BLOB NOT NULL
            );
            CREATE INDEX analytics_events_instance ON analytics_events(project, app_instance_id, seq);
            CREATE TABLE analytics_event_names (
                project TEXT NOT NULL,
                app_instance_id TEXT NOT NULL,
                name TEXT NOT NULL,
                PRIMARY KEY (project, app_instance_id, name)
            ) WITHOUT ROWID;
            CREATE TABLE analytics_user_properties (
                project TEXT NOT NULL,
                app_instance_id TEXT NOT NULL,
                name TEXT NOT NULL,
                value TEXT NOT NULL,
                set_at REAL NOT NULL,
                PRIMARY KEY (project, app_instance_id, name)
            ) WITHOUT ROWID;
            """)
    }

    static func eventNames(_ db: GRDB.Database, project: String, appInstanceId: String) throws -> Set<String> {
        Set(try String.fetchAll(
            db,
            sql: "SELECT name FROM analytics_event_names WHERE project = ? AND app_instance_id = ?",
            arguments: [project, appInstanceId]
        ))
    }

    /// The user property names set on any app instance of the project.
    static func userPropertyNames(_ db: GRDB.Database, project: String) throws -> Set<String> {
        Set(try String.fetchAll(
            db, sql: "SELECT DISTINCT name FROM analytics_user_properties WHERE project = ?", arguments: [project]
        ))
    }

    static func userProperties(_ db: GRDB.Database, project: String, appInstanceId: String) throws
        -> [String: AnalyticsUserProperty]
    {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT name, value, set_at FROM analytics_user_properties WHERE project = ? AND app_instance_id = ?",
            arguments: [project, appInstanceId]
        )
        var properties: [String: AnalyticsUserProperty] = [:]
        for row in rows {
            let setAt: Double = row["set_at"]
            properties[row["name"]] = AnalyticsUserProperty(
                value: row["value"], setTime: Date(timeIntervalSince1970: setAt)
            )
        }
        return properties
    }

    /// Sets (`value` non-`nil`) or clears a user property.
    static func setUserProperty(
        _ db: GRDB.Database, project: String, appInstanceId: String, name: String, value: String?, at time: Date
    ) throws {
        guard let value else {
            try db.execute(
                sql: "DELETE FROM analytics_user_properties WHERE project = ? AND app_instance_id = ? AND name = ?",
                arguments: [project, appInstanceId, name]
            )
            return
        }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO analytics_user_properties (project, app_instance_id, name, value, set_at)
                VALUES (?, ?, ?, ?, ?)
                """,
            arguments: [project, appInstanceId, name, value, time.timeIntervalSince1970]
        )
    }

    static func append(_ db: GRDB.Database, project: String, appId: String, event: AnalyticsEvent) throws {
        try db.execute(
            sql: "INSERT INTO analytics_events (project, app_id, app_instance_id, name, event) VALUES (?, ?, ?, ?, ?)",
            arguments: [project, appId, event.appInstanceId, event.name, try JSONEncoder().encode(event)]
        )
        try db.execute(
            sql: "INSERT OR IGNORE INTO analytics_event_names (project, app_instance_id, name) VALUES (?, ?, ?)",
            arguments: [project, event.appInstanceId, event.name]
        )
    }

    /// The last `limit` events of an app instance (all when `nil`), optionally of one name, oldest first.
    static func events(
        _ db: GRDB.Database, project: String, appInstanceId: String?, name: String?, limit: Int?
    ) throws -> [AnalyticsEvent] {
        var sql = "SELECT event FROM analytics_events WHERE project = ?"
        var arguments: StatementArguments = [project]
        if let appInstanceId {
            sql += " AND app_instance_id = ?"
            arguments += [appInstanceId]
        }
        if let name {
            sql += " AND name = ?"
            arguments += [name]
        }
        sql += " ORDER BY seq DESC LIMIT ?"
        arguments += [limit ?? -1]
        let rows = try Data.fetchAll(db, sql: sql, arguments: arguments)
        return try rows.reversed().map { try JSONDecoder().decode(AnalyticsEvent.self, from: $0) }
    }
}
