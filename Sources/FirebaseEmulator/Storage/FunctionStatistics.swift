import Foundation
import GRDB

/// What the event log says of one function over a window of time: its deliveries, their
/// attempts and outcomes, and its latest errors.
public struct FunctionStatistics: Sendable, Hashable {
    /// One error of one delivery.
    public struct Failure: Sendable, Hashable {
        /// The event's id.
        public var eventId: String
        /// The error, in words.
        public var error: String
        /// When the delivery last changed.
        public var time: Date
    }

    /// The function.
    public var function: String
    /// Events delivered (or being delivered) to it.
    public var events: Int
    /// Attempts made, retries and replays included.
    public var attempts: Int
    /// Events it handled.
    public var succeeded: Int
    /// Events waiting for a retry.
    public var retrying: Int
    /// Events given up on.
    public var deadLettered: Int
    /// Its latest errors, newest first (at most five).
    public var lastErrors: [Failure]

    /// Attempts that did not succeed.
    public var failedAttempts: Int { attempts - succeeded }
}

extension EmulatorStore {
    /// Each function's statistics over the deliveries that changed since `since`, by name.
    public func functionStatistics(since: Date) throws -> [FunctionStatistics] {
        try read { db in
            let time = since.timeIntervalSince1970
            var statistics = try Row.fetchAll(db, sql: """
                SELECT function, COUNT(*) AS events, SUM(attempts) AS attempts,
                    SUM(status = 'succeeded') AS succeeded, SUM(status = 'retrying') AS retrying,
                    SUM(status LIKE 'dead-letter:%') AS dead
                FROM deliveries WHERE updated_at >= ? GROUP BY function ORDER BY function
                """, arguments: [time]).map { row in
                FunctionStatistics(function: row["function"], events: row["events"], attempts: row["attempts"],
                    succeeded: row["succeeded"], retrying: row["retrying"], deadLettered: row["dead"], lastErrors: [])
            }
            for index in statistics.indices {
                statistics[index].lastErrors = try Row.fetchAll(db, sql: """
                    SELECT outbox.event_id, deliveries.last_error, deliveries.updated_at
                    FROM deliveries JOIN outbox ON outbox.seq = deliveries.event_seq
                    WHERE deliveries.function = ? AND deliveries.last_error IS NOT NULL AND deliveries.updated_at >= ?
                    ORDER BY deliveries.updated_at DESC LIMIT 5
                    """, arguments: [statistics[index].function, time]).map { row in
                    FunctionStatistics.Failure(eventId: row["event_id"], error: row["last_error"],
                        time: Date(timeIntervalSince1970: row["updated_at"]))
                }
            }
            return statistics
        }
    }
}
