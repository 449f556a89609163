import CloudEvents
import CloudFunctions
import FunctionsBus
import Foundation
import GRDB

extension EmulatorStore {
    static let outboxSchema = StoreSchema(name: "outbox-v1") { db in
        try db.execute(sql: """
            CREATE TABLE outbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                event_id TEXT NOT NULL,
                source TEXT NOT NULL,
                type TEXT NOT NULL,
                subject TEXT,
                event BLOB NOT NULL,
                created_at REAL NOT NULL,
                done_at REAL
            );
            CREATE INDEX outbox_pending ON outbox(seq) WHERE done_at IS NULL;
            CREATE TABLE deliveries (
                event_seq INTEGER NOT NULL REFERENCES outbox(seq) ON DELETE CASCADE,
                function TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                status TEXT NOT NULL,
                last_error TEXT,
                updated_at REAL NOT NULL,
                PRIMARY KEY (event_seq, function)
            );
            """)
    }

    /// Counts, per event, how often a restart or a redeploy found it undone and sent it again:
    /// each such time may deliver it twice (at least once allows that), and the event log says so.
    static let recoveriesSchema = StoreSchema(name: "outbox-v2-recoveries") { db in
        try db.execute(sql: "ALTER TABLE outbox ADD COLUMN recoveries INTEGER NOT NULL DEFAULT 0")
    }

    /// Events by source and id: what ``EmulatorStore/ingest(_:)`` looks up to commit an event
    /// from outside only once.
    static let eventKeySchema = StoreSchema(name: "outbox-v4-event-key") { db in
        try db.execute(sql: "CREATE INDEX outbox_event_key ON outbox(source, event_id)")
    }

    /// Commits events from outside (Google's emulators) to the outbox, leaving out those it
    /// already has (same source and id: a message delivered again).
    ///
    /// - Returns: the outbox entries added.
    func ingest(_ events: [CloudEvent]) async throws -> [OutboxEntry] {
        try await write { transaction in
            for event in events where try Self.latestSequence(of: event.key, in: transaction.db) == nil {
                try transaction.emit(event)
            }
        }.1
    }

    /// Every attempt of every delivery: when it started and ended, and how.
    static let attemptsSchema = StoreSchema(name: "outbox-v3-attempts") { db in
        try db.execute(sql: """
            CREATE TABLE delivery_attempts (
                event_seq INTEGER NOT NULL REFERENCES outbox(seq) ON DELETE CASCADE,
                function TEXT NOT NULL,
                attempt INTEGER NOT NULL,
                started_at REAL NOT NULL,
                finished_at REAL NOT NULL,
                succeeded INTEGER NOT NULL,
                error TEXT
            );
            CREATE INDEX delivery_attempts_event ON delivery_attempts(event_seq);
            CREATE INDEX delivery_attempts_function ON delivery_attempts(function, finished_at);
            """)
    }

    /// Notes that the events were sent again by a recovery.
    public func markRecovered(_ sequences: [Int64]) async throws {
        guard !sequences.isEmpty else { return }
        _ = try await write { transaction in
            try transaction.db.execute(
                sql: "UPDATE outbox SET recoveries = recoveries + 1 WHERE seq IN (\(sequences.map(String.init).joined(separator: ",")))"
            )
        }
    }

    /// Makes an event done before pending again (a dead letter replayed): its newest outbox
    /// entry, or, when the event log no longer has it, a new entry (not published: the replay
    /// delivers it). Either way it is published again after a restart, until it is done once more.
    ///
    /// - Returns: the sequence of the pending entry.
    func reopen(_ event: CloudEvent) async throws -> Int64 {
        let (sequence, _) = try await write { transaction -> Int64 in
            let db = transaction.db
            if let sequence = try Self.latestSequence(of: event.key, in: db) {
                try db.execute(sql: "UPDATE outbox SET done_at = NULL WHERE seq = ?", arguments: [sequence])
                return sequence
            }
            try transaction.emit(event)
            return db.lastInsertedRowID
        }
        return sequence
    }

    /// Deletes the events that are done and older than the newest `count` events of the
    /// outbox, with their deliveries and attempts. Events not done stay, however old.
    ///
    /// - Returns: how many events were deleted.
    @discardableResult
    package func pruneEventLog(keeping count: Int) async throws -> Int {
        let (deleted, _) = try await write { transaction in
            try transaction.db.execute(
                sql: "DELETE FROM outbox WHERE seq <= (SELECT MAX(seq) FROM outbox) - ? AND done_at IS NOT NULL",
                arguments: [count])
            return transaction.db.changesCount
        }
        return deleted
    }

    /// The deliveries the event log records as given up on, of events that are done (not being
    /// replayed): the newest `limit`, oldest first, one per function and event. A restarted
    /// emulator lists and replays them as its bus's own.
    package func deadLetters(limit: Int) throws -> [DeadLetter] {
        let prefix = "dead-letter:"
        let rows = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT o.seq, o.event, o.created_at, d.function, d.attempts, d.status, d.last_error, d.updated_at
                FROM deliveries d JOIN outbox o ON o.seq = d.event_seq
                WHERE d.status LIKE 'dead-letter:%' AND o.done_at IS NOT NULL
                ORDER BY d.updated_at DESC, o.seq DESC LIMIT ?
                """, arguments: [limit])
        }
        var seen = Set<String>()
        var letters: [DeadLetter] = []
        for row in rows {
            let status: String = row["status"]
            let letter = DeadLetter(
                function: row["function"], event: try OutboxEntry(row: row).event, attempts: row["attempts"],
                lastError: row["last_error"],
                reason: DeadLetter.Reason(rawValue: String(status.dropFirst(prefix.count))) ?? .failed,
                time: Date(timeIntervalSince1970: row["updated_at"]))
            if seen.insert(letter.id).inserted { letters.append(letter) }
        }
        return letters.reversed()
    }

    /// The sequence of the latest event in the outbox (0 when it is empty).
    func latestSequence() throws -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM outbox") ?? 0 }
    }

    /// How many events are not yet done.
    public func pendingEventCount() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE done_at IS NULL") ?? 0 }
    }

    /// Events not yet done, oldest first, after `sequence`.
    public func pendingEvents(after sequence: Int64 = 0, limit: Int = 1000) throws -> [OutboxEntry] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT seq, event, created_at FROM outbox WHERE done_at IS NULL AND seq > ? ORDER BY seq LIMIT ?",
                arguments: [sequence, limit]
            ).map(OutboxEntry.init(row:))
        }
    }

    /// What the bus reported about an outbox event, to record.
    package enum Outcome: Sendable {
        /// One function's delivery of the event with this outbox sequence reached a state.
        case delivery(sequence: Int64, DeliveryReport)
        /// These outbox entries are done: every function finished with them.
        case done([Int64], at: Date)
    }

    /// Records outcomes in order, in one transaction. A delivery's attempts add up across
    /// restarts: a bus started anew counts from 1 again, and the log keeps the total.
    package func record(_ outcomes: [Outcome]) async throws {
        guard !outcomes.isEmpty else { return }
        _ = try await write { transaction in
            let db = transaction.db
            for outcome in outcomes {
                switch outcome {
                case .delivery(let sequence, let report):
                    try EmulatorStore.recordDelivery(sequence: sequence, report: report, in: db)
                case .done(let sequences, let time):
                    let statement = try db.cachedStatement(sql: "UPDATE outbox SET done_at = ? WHERE seq = ?")
                    for sequence in sequences {
                        try statement.execute(arguments: [time.timeIntervalSince1970, sequence])
                    }
                }
            }
        }
    }

    private static func recordDelivery(sequence: Int64, report: DeliveryReport, in db: GRDB.Database) throws {
        let status: String
        switch report.status {
        case .succeeded: status = "succeeded"
        case .willRetry: status = "retrying"
        case .deadLettered(let reason): status = "dead-letter:\(reason.rawValue)"
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO deliveries (event_seq, function, attempts, status, last_error, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (event_seq, function) DO UPDATE SET
                    attempts = max(excluded.attempts, deliveries.attempts + 1), status = excluded.status,
                    last_error = excluded.last_error, updated_at = excluded.updated_at
                """
        ).execute(
            arguments: [sequence, report.function, report.attempt, status, report.error, report.time.timeIntervalSince1970]
        )
        // An event that expired has no attempt to record.
        if let started = report.startedAt {
            try db.cachedStatement(
                sql: """
                    INSERT INTO delivery_attempts (event_seq, function, attempt, started_at, finished_at, succeeded, error)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(
                arguments: [sequence, report.function, report.attempt, started.timeIntervalSince1970,
                    report.time.timeIntervalSince1970, report.status == .succeeded, report.error]
            )
        }
    }

    /// The outbox sequence of the newest event with this source and id, if the outbox has one.
    func latestSequence(of key: CloudEvent.Key) throws -> Int64? {
        try read { db in try Self.latestSequence(of: key, in: db) }
    }

    static func latestSequence(of key: CloudEvent.Key, in db: GRDB.Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT seq FROM outbox WHERE source = ? AND event_id = ? ORDER BY seq DESC LIMIT 1",
            arguments: [key.source, key.id])
    }

    /// The newest stored event with this id, if the outbox has one.
    public func storedEvent(id: String) throws -> CloudEvent? {
        try read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT seq, event, created_at FROM outbox
                    WHERE json_extract(CAST(event AS TEXT), '$.id') = ? ORDER BY seq DESC LIMIT 1
                    """,
                arguments: [id]
            ).map { try OutboxEntry(row: $0).event }
        }
    }

    /// The event log, oldest first: each event with the state of its deliveries.
    public func eventLog(limit: Int = 1000) throws -> [EventLogEntry] {
        try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT seq, event, created_at, done_at, recoveries
                    FROM (SELECT * FROM outbox ORDER BY seq DESC LIMIT ?) ORDER BY seq
                    """,
                arguments: [limit]
            )
            let entries = try rows.map(OutboxEntry.init(row:))
            guard let first = entries.first?.sequence, let last = entries.last?.sequence else { return [] }
            // The deliveries and attempts of every listed event, in one query each.
            var attempts: [Int64: [String: [EventLogEntry.Attempt]]] = [:]
            for attempt in try Row.fetchAll(db, sql: """
                SELECT event_seq, function, attempt, started_at, finished_at, succeeded, error FROM delivery_attempts
                WHERE event_seq BETWEEN ? AND ? ORDER BY rowid
                """, arguments: [first, last])
            {
                attempts[attempt["event_seq"], default: [:]][attempt["function"], default: []].append(EventLogEntry.Attempt(
                    attempt: attempt["attempt"], startedAt: Date(timeIntervalSince1970: attempt["started_at"]),
                    finishedAt: Date(timeIntervalSince1970: attempt["finished_at"]), succeeded: attempt["succeeded"],
                    error: attempt["error"]))
            }
            var deliveries: [Int64: [EventLogEntry.Delivery]] = [:]
            for delivery in try Row.fetchAll(db, sql: """
                SELECT event_seq, function, attempts, status, last_error FROM deliveries
                WHERE event_seq BETWEEN ? AND ? ORDER BY function
                """, arguments: [first, last])
            {
                let sequence: Int64 = delivery["event_seq"]
                let function: String = delivery["function"]
                deliveries[sequence, default: []].append(EventLogEntry.Delivery(function: function,
                    attempts: delivery["attempts"], status: delivery["status"], lastError: delivery["last_error"],
                    attemptLog: attempts[sequence]?[function] ?? []))
            }
            return zip(entries, rows).map { entry, row in
                let doneAt: Double? = row["done_at"]
                return EventLogEntry(entry: entry, done: doneAt != nil, deliveries: deliveries[entry.sequence] ?? [],
                    recoveries: row["recoveries"])
            }
        }
    }
}

extension OutboxEntry {
    init(row: Row) throws {
        let data: Data = row["event"]
        self.init(
            sequence: row["seq"],
            event: try CloudEvent(jsonFormat: data),
            createdAt: Date(timeIntervalSince1970: row["created_at"])
        )
    }
}

/// One event of the event log with its deliveries.
public struct EventLogEntry: Sendable, Hashable {
    /// One function's delivery of the event.
    public struct Delivery: Sendable, Hashable {
        /// The function.
        public var function: String
        /// Attempts so far.
        public var attempts: Int
        /// `succeeded`, `retrying` or `dead-letter:<reason>`.
        public var status: String
        /// The last error, if any.
        public var lastError: String?
        /// Every attempt, in the order they ended.
        public var attemptLog: [Attempt] = []
    }

    /// One attempt of one delivery.
    public struct Attempt: Sendable, Hashable {
        /// The attempt's number, from 1 (counting again from 1 after a restart).
        public var attempt: Int
        /// When it started.
        public var startedAt: Date
        /// When it ended.
        public var finishedAt: Date
        /// Whether the handler returned.
        public var succeeded: Bool
        /// The error, when it failed.
        public var error: String?
    }

    /// The event and its place in the outbox.
    public var entry: OutboxEntry
    /// Whether every function has finished with it.
    public var done: Bool
    /// The deliveries.
    public var deliveries: [Delivery]
    /// How often a restart or redeploy sent it again while it was undone.
    public var recoveries: Int = 0
}
