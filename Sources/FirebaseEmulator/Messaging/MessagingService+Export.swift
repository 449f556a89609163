import CloudFunctions
import Foundation
import GRDB
import Synchronization

extension MessagingService {
    static let exportedTables = ["fcm_devices", "fcm_subscriptions", "fcm_messages", "fcm_inbox"]

    /// Devices, subscription history, messages and inboxes (for `emulators:export`).
    public func exportState() throws -> JSONValue {
        try store.read { db in
            var tables: [String: JSONValue] = [:]
            for table in Self.exportedTables { tables[table] = try StoreTableDump.rows(db, table: table) }
            return .object(tables)
        }
    }

    /// Replaces the messaging state inside an import transaction.
    func importState(_ state: JSONValue, file: String, in db: GRDB.Database) throws {
        for table in Self.exportedTables {
            try db.execute(sql: "DELETE FROM \(table)")
            try StoreTableDump.insert(db, table: table, rows: state[table] ?? .array([]), file: file)
        }
    }

    /// Reloads devices, the topic index and the message sequence after an import.
    func reloadFromStore() throws {
        let fresh = try MessagingService(store: store, project: project, clock: clock)
        let loaded = fresh.state.withLock { ($0.devices, $0.index, $0.nextSequence) }
        state.withLock { state in
            state.devices = loaded.0
            state.index = loaded.1
            state.nextSequence = loaded.2
        }
    }
}
