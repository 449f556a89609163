import CloudFunctions
import Foundation
import GRDB

extension AnalyticsService {
    static let exportedTables = ["analytics_events", "analytics_event_names", "analytics_user_properties"]

    /// Logged events, event names and user properties of this project (for `emulators:export`).
    public func exportState() throws -> JSONValue {
        try store.read { db in
            var tables: [String: JSONValue] = [:]
            for table in Self.exportedTables {
                tables[table] = try StoreTableDump.rows(db, table: table, filter: "project = ?", arguments: [project])
            }
            return .object(tables)
        }
    }

    /// Replaces this project's analytics state inside an import transaction.
    func importState(_ state: JSONValue, file: String, in db: GRDB.Database) throws {
        for table in Self.exportedTables {
            try db.execute(sql: "DELETE FROM \(table) WHERE project = ?", arguments: [project])
            try StoreTableDump.insert(db, table: table, rows: state[table] ?? .array([]), file: file)
        }
    }
}
