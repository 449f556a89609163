import Foundation
import GRDB
import Synchronization

/// Tells subscribers which parts of the emulator's state each commit changed (`remoteConfig`,
/// `messaging`, `auth`, `analytics`, `database`, `events`, `functions`), for pages that update
/// live. Commits that come faster than a subscriber reads are merged: it gets their union.
///
/// It watches the store's SQLite connection (a GRDB transaction observer), so every write is
/// seen, whichever service made it, and only once it is committed.
package final class StoreChangeFeed: Sendable {
    private struct Subscriber {
        var pending: Set<String>
        let signal: AsyncStream<Void>.Continuation
    }

    private let subscribers = Mutex<[UUID: Subscriber]>([:])
    /// Read without the lock on every commit: no subscriber, no work.
    private let subscriberCount = Atomic<Int>(0)

    /// The part of the state a table belongs to, `nil` for bookkeeping tables.
    package static func area(ofTable table: String) -> String? {
        switch table {
        case "remote_config_versions": "remoteConfig"
        case "outbox", "deliveries", "delivery_attempts": "events"
        case "deployment", "worker_process", "queued_task": "functions"
        default:
            if table.hasPrefix("fcm_") { "messaging" }
            else if table.hasPrefix("auth_") { "auth" }
            else if table.hasPrefix("analytics_") { "analytics" }
            else if table.hasPrefix("rtdb_") { "database" }
            else { nil }
        }
    }

    /// One subscriber: a signal after each commit that changed something, and the areas
    /// changed since it last took them.
    package struct Subscription: Sendable {
        /// Yields after commits; several commits before a read make one signal.
        package let signals: AsyncStream<Void>
        let id: UUID
        let feed: StoreChangeFeed

        /// The areas changed since the last call.
        package func take() -> Set<String> {
            feed.subscribers.withLock { subscribers in
                defer { subscribers[id]?.pending = [] }
                return subscribers[id]?.pending ?? []
            }
        }
    }

    /// Subscribes from now on; the subscription ends when its signals are no longer iterated.
    package func subscribe() -> Subscription {
        let id = UUID()
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        subscribers.withLock { $0[id] = Subscriber(pending: [], signal: continuation) }
        subscriberCount.add(1, ordering: .relaxed)
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.subscribers.withLock { $0[id] = nil }
            self.subscriberCount.subtract(1, ordering: .relaxed)
        }
        return Subscription(signals: signals, id: id, feed: self)
    }

    /// Whether anyone listens; without a subscriber commits are not even looked at.
    var isObserved: Bool { subscriberCount.load(ordering: .relaxed) > 0 }

    /// Reports the tables a commit changed.
    func committed(_ tables: Set<String>) {
        guard isObserved else { return }
        let areas = Set(tables.compactMap(Self.area(ofTable:)))
        guard !areas.isEmpty else { return }
        let signals = subscribers.withLock { subscribers in
            subscribers.keys.map { id -> AsyncStream<Void>.Continuation in
                subscribers[id]!.pending.formUnion(areas)
                return subscribers[id]!.signal
            }
        }
        for signal in signals { signal.yield() }
    }

    /// The transaction observer that feeds it; it lives as long as the store.
    final class Observer: TransactionObserver, @unchecked Sendable {
        // Only touched on the writer's connection, one transaction at a time.
        private var tables: Set<String> = []
        private let feed: StoreChangeFeed

        init(feed: StoreChangeFeed) { self.feed = feed }

        // Each statement that may change a table names it here before it runs (row events are
        // not needed, and SQLite reports none for WITHOUT ROWID tables).
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
            if feed.isObserved { tables.insert(eventKind.tableName) }
            return false
        }

        func databaseDidChange(with event: DatabaseEvent) {}

        func databaseDidCommit(_ db: GRDB.Database) {
            guard !tables.isEmpty else { return }
            let changed = tables
            tables = []
            feed.committed(changed)
        }

        func databaseDidRollback(_ db: GRDB.Database) { tables = [] }
    }
}
