import CloudEvents
import Foundation
import GRDB

extension EmulatorStore {
    /// When each deployed schedule last fired, so that a restart neither fires a moment again
    /// nor forgets one missed while the emulator was down.
    static let schedulesSchema = StoreSchema(name: "schedules-v1") { db in
        try db.execute(sql: "CREATE TABLE schedule_firing (schedule TEXT PRIMARY KEY, last_firing REAL NOT NULL)")
    }

    /// The moment each schedule last fired (or was deployed, if it has not fired since), by key.
    func lastFirings() throws -> [String: Date] {
        try read { db in
            var firings: [String: Date] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT schedule, last_firing FROM schedule_firing") {
                firings[row["schedule"]] = Date(timeIntervalSince1970: row["last_firing"])
            }
            return firings
        }
    }

    /// Notes `moment` as the last firing of the schedule `key`, and commits its event with it
    /// (unless the outbox has that event already); nothing when `isCurrent`, asked inside the
    /// transaction, says its deployment has been replaced.
    ///
    /// - Returns: the outbox entry committed, to publish.
    @discardableResult
    func recordFiring(
        _ key: String, at moment: Date, event: CloudEvent?, if isCurrent: @escaping @Sendable () -> Bool
    ) async throws -> [OutboxEntry] {
        try await write { transaction in
            guard isCurrent() else { return }
            try transaction.db.execute(
                sql: "INSERT OR REPLACE INTO schedule_firing (schedule, last_firing) VALUES (?, ?)",
                arguments: [key, moment.timeIntervalSince1970])
            if let event, try Self.latestSequence(of: event.key, in: transaction.db) == nil {
                try transaction.emit(event)
            }
        }.1
    }

    /// Forgets the schedules not in `keys`: deployed again later, they start afresh.
    func keepSchedules(_ keys: Set<String>) async throws {
        _ = try await write { transaction in
            let stored = try String.fetchAll(transaction.db, sql: "SELECT schedule FROM schedule_firing")
            for key in stored where !keys.contains(key) {
                try transaction.db.execute(sql: "DELETE FROM schedule_firing WHERE schedule = ?", arguments: [key])
            }
        }
    }
}
