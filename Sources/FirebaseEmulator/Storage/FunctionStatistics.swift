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
    /// Its latest failed attempts, newest first (at most five).
    public var lastErrors: [Failure]
    /// The median duration of its attempts in the window, in milliseconds.
    public var p50Milliseconds: Double?
    /// The 99th percentile duration of its attempts in the window, in milliseconds.
    public var p99Milliseconds: Double?

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
            // The latest five failed attempts of every function, and every attempt's duration, in
            // one query each.
            var failures: [String: [FunctionStatistics.Failure]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT function, event_id, error, finished_at FROM (
                    SELECT delivery_attempts.function, outbox.event_id, delivery_attempts.error, delivery_attempts.finished_at,
                        ROW_NUMBER() OVER (PARTITION BY delivery_attempts.function ORDER BY delivery_attempts.finished_at DESC) AS rank
                    FROM delivery_attempts JOIN outbox ON outbox.seq = delivery_attempts.event_seq
                    WHERE delivery_attempts.succeeded = 0 AND delivery_attempts.finished_at >= ?)
                WHERE rank <= 5 ORDER BY function, finished_at DESC
                """, arguments: [time])
            {
                failures[row["function"], default: []].append(FunctionStatistics.Failure(eventId: row["event_id"],
                    error: row["error"] ?? "failed", time: Date(timeIntervalSince1970: row["finished_at"])))
            }
            var durations: [String: [Double]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT function, (finished_at - started_at) * 1000 AS duration FROM delivery_attempts
                WHERE finished_at >= ? ORDER BY function, duration
                """, arguments: [time])
            {
                durations[row["function"], default: []].append(row["duration"])
            }
            for index in statistics.indices {
                let function = statistics[index].function
                statistics[index].lastErrors = failures[function] ?? []
                statistics[index].p50Milliseconds = Self.percentile(0.5, of: durations[function] ?? [])
                statistics[index].p99Milliseconds = Self.percentile(0.99, of: durations[function] ?? [])
            }
            return statistics
        }
    }

    /// The value below which `fraction` of the sorted `values` lie (nearest rank); `nil` for none.
    static func percentile(_ fraction: Double, of sorted: [Double]) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
