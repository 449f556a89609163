import CloudEvents
import CloudFunctions
import Foundation
import GRDB
import Synchronization

/// Where the emulator keeps its state: one SQLite database in a data directory, or in memory.
///
/// Every state change and the events it causes are written in **one transaction** (a
/// transactional outbox): a crash at any point never loses a committed change's events and
/// never emits events for an uncommitted change. The ``OutboxDispatcher`` publishes what the
/// outbox holds and marks each event done once every function has finished with it, so
/// after a restart undelivered events are delivered again.
public final class EmulatorStore: Sendable {
    /// The file the state lives in, or `nil` in memory.
    public let path: String?
    let writer: any DatabaseWriter
    /// Which parts of the state each commit changes, for live views.
    package let changes = StoreChangeFeed()
    private let changeObserver: StoreChangeFeed.Observer
    /// The writes waiting to join the next group commit (``writeInGroup(_:)``).
    let queuedWrites = Mutex(QueuedWrites())

    /// Opens (creating if needed) the store in `directory`, or an in-memory store when `nil`.
    ///
    /// - Throws: when the directory cannot be created or the database cannot be opened.
    package init(directory: URL?, schemas: [StoreSchema] = EmulatorStore.allSchemas) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        if let directory {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("emulator.sqlite").path
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            writer = try DatabasePool(path: file, configuration: configuration)
            path = file
        } else {
            writer = try DatabaseQueue(configuration: configuration)
            path = nil
        }
        var migrator = DatabaseMigrator()
        let own = [
            EmulatorStore.outboxSchema, EmulatorStore.recoveriesSchema, EmulatorStore.attemptsSchema,
            EmulatorStore.eventKeySchema,
            EmulatorStore.deploymentSchema,
            EmulatorStore.workerProcessSchema, EmulatorStore.workerProcessesSchema, EmulatorStore.deploymentEnvironmentSchema,
            EmulatorStore.schedulesSchema, EmulatorStore.tasksSchema,
        ]
        for schema in own + schemas {
            migrator.registerMigration(schema.name, migrate: schema.migrate)
        }
        try migrator.migrate(writer)
        changeObserver = StoreChangeFeed.Observer(feed: changes)
        writer.add(transactionObserver: changeObserver, extent: .observerLifetime)
    }

    /// Runs `body` in a write transaction of its own; events it emits are committed with its
    /// changes. The caller waits without holding a thread; the transaction's
    /// ``StoreTransaction/afterCommit(_:orRollback:)`` hooks run before any later write. A write
    /// goes through even when the calling task is cancelled meanwhile (a worker that stops still
    /// has its process forgotten), as a blocking write did.
    ///
    /// - Returns: what `body` returns, and the outbox entries it added.
    /// - Throws: what `body` throws (nothing is written then), or a database error.
    package func write<T: Sendable>(
        _ body: @escaping @Sendable (inout StoreTransaction) throws -> T
    ) async throws -> (T, [OutboxEntry]) {
        let trace = TraceScope.current
        return try await writeUncancelled { db in
            var transaction = StoreTransaction(db: db, trace: trace)
            let value = try body(&transaction)
            return (value, transaction.emitted)
        }
    }

    /// Runs `updates` in a write transaction, waiting without holding a thread. GRDB's callback
    /// form: the transaction is not cancelled with the waiting task.
    func writeUncancelled<T: Sendable>(_ updates: @escaping @Sendable (GRDB.Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writer.asyncWrite(updates, completion: { _, result in continuation.resume(with: result) })
        }
    }

    /// Reads from a consistent snapshot of the state.
    public func read<T>(_ body: (GRDB.Database) throws -> T) throws -> T {
        try writer.read { db in try body(db) }
    }
}

/// A write transaction: the database, and the events emitted so far.
package struct StoreTransaction {
    /// The database, inside the transaction.
    public let db: GRDB.Database
    /// The events emitted in this transaction, in order.
    public private(set) var emitted: [OutboxEntry] = []
    /// Whether the write shares its transaction with others (in a savepoint of its own), so its
    /// hooks are kept for the group rather than handed to the database.
    private let isGrouped: Bool
    /// A grouped write's hooks, in the order they were added.
    private(set) var commitHooks: [@Sendable () -> Void] = []
    private(set) var rollbackHooks: [@Sendable () -> Void] = []

    /// The span the write was asked in, which the events it emits carry.
    private let trace: TraceParent?

    init(db: GRDB.Database, isGrouped: Bool = false, trace: TraceParent? = nil) {
        self.db = db
        self.isGrouped = isGrouped
        self.trace = trace
    }

    /// Runs `onCommit` once this write has committed, or `onRollback` if it is undone, on the
    /// store's writer and before any later write: in-memory state follows the stored one, in
    /// commit order. The rollbacks of one write run in the reverse order of their adding.
    public mutating func afterCommit(_ onCommit: @escaping @Sendable () -> Void,
        orRollback onRollback: @escaping @Sendable () -> Void = {})
    {
        if isGrouped {
            commitHooks.append(onCommit)
            rollbackHooks.append(onRollback)
        } else {
            db.afterNextTransaction(onCommit: { _ in onCommit() }, onRollback: { _ in onRollback() })
        }
    }

    /// Adds an event to the outbox, in this transaction. An event without a `traceparent` gets
    /// the span of the write (``TraceScope``), when there is one.
    public mutating func emit(_ event: CloudEvent) throws {
        let now = Date()
        // The event keeps its encoding, which its deliveries to workers send again.
        var event = event
        if let trace, event.traceParent == nil { event.traceParent = trace }
        let json = Data(event.keepJSONFormat())
        try db.cachedStatement(
            sql: """
                INSERT INTO outbox (event_id, source, type, subject, event, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                event.id, event.source, event.type, event.subject, json, now.timeIntervalSince1970,
            ]
        )
        emitted.append(OutboxEntry(sequence: db.lastInsertedRowID, event: event, createdAt: now))
    }
}

extension EmulatorStore {
    /// The schemas of every service, applied in this order.
    package static let allSchemas: [StoreSchema] = [
        RemoteConfigVersionTable.schema,
        MessagingService.schema,
        AuthUserStorage.schema,
        AnalyticsStorage.schema,
        DatabaseService.schema,
        AuthOobCodeStorage.schema,
    ]
}

extension EmulatorStore {
    /// Runs `capture` on the writer between two commits (where in-memory state matches the last
    /// commit), then `read` on a snapshot of the database as of that same commit. With a store on
    /// disk, writes go on while `read` runs; in memory, `read` runs at once, on the writer.
    ///
    /// - Returns: what `capture` and `read` return.
    /// - Throws: what either throws, or a database error.
    package func readAtOneCommit<Captured: Sendable, Value: Sendable>(
        capture: @escaping @Sendable () throws -> Captured, read: @escaping @Sendable (GRDB.Database) throws -> Value
    ) async throws -> (Captured, Value) {
        try await withCheckedThrowingContinuation { continuation in
            writer.asyncWriteWithoutTransaction { [writer] _ in
                let captured: Captured
                do {
                    captured = try capture()
                } catch {
                    return continuation.resume(throwing: error)
                }
                writer.spawnConcurrentRead { database in
                    continuation.resume(with: Result { (captured, try read(database.get())) })
                }
            }
        }
    }
}

extension EmulatorStore {
    /// Returns once `condition` holds: checked now, then after each commit that changes the
    /// emulator's state (events and their deliveries, deployments and worker processes, the
    /// services' data). Returns early, the condition unmet, if the calling task is cancelled.
    package func waitUntil(_ condition: () throws -> Bool) async rethrows {
        let subscription = changes.subscribe()
        if try condition() { return }
        for await _ in subscription.signals where try condition() { return }
    }
}
