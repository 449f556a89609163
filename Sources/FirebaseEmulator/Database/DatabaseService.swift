import CloudEvents
import CloudFunctions
import Foundation
import GRDB
import Logging
import Synchronization

/// Emulated Firebase Realtime Database: one JSON tree per namespace (database instance name,
/// such as `demo-project-default-rtdb`), reads with queries and ETags, writes with server
/// values and conditional `if-match`, database trigger events, and a change feed for
/// streaming listeners.
///
/// Each namespace's tree lives in memory; the store keeps an append-only log of resolved
/// writes plus a snapshot of the tree (taken in a write's own transaction, which then drops the
/// log rows the snapshot covers), so opening a store rebuilds every tree as snapshot + replayed
/// log. A snapshot waits for ``snapshotInterval`` writes and for the log to hold as many bytes
/// as the last snapshot: serialising the tree then costs, spread over the writes, no more than
/// their own log rows, however large the tree grows, and a reopen reads at most about twice
/// the tree.
///
/// Triggers (``setTriggers(_:)``): a write emits, in its own transaction, one event per
/// (event type, concrete path) for every trigger pattern matching an ancestor of a written
/// location, the location itself, or a descendant holding data before or after the write,
/// where the value changed; triggers sharing a concrete path share its events (the bus
/// delivers each to every matching function). A `**` segment may match zero keys, so
/// `/logs/{rest=**}` reports a write at `/logs/a` at `/logs`, `/logs/a` and each changed
/// node below it. At most ``maximumEventsPerWrite`` events are emitted per write: the write
/// still succeeds and the rest are dropped with a warning in the log. A write that changes
/// nothing is not logged and emits nothing.
///
/// Writes are serialised: a write validates, applies to the tree in place, computes its
/// trigger events, and commits log row and events in one transaction; if the commit fails
/// the tree is put back. `emit` and the change feeds are called in commit order, while the
/// write lock is held, so `emit` must not call back into this service synchronously.
public final class DatabaseService: Sendable {
    struct Namespace {
        var tree = DatabaseTree()
        var log = LogState()
    }

    /// Where a namespace's log stands.
    struct LogState {
        /// The sequence number of the last logged write.
        var sequence: Int64 = 0
        /// Writes logged since the last snapshot.
        var writesSinceSnapshot = 0
        /// Bytes of those writes' log rows (paths and values).
        var loggedBytes = 0
        /// Bytes of the last snapshot's tree; 0 before the first.
        var snapshotBytes = 0

        /// Whether the next write also snapshots the tree: after `interval` writes, once the log
        /// holds as many bytes as the last snapshot.
        func snapshotsNext(interval: Int) -> Bool {
            writesSinceSnapshot + 1 >= interval && loggedBytes >= snapshotBytes
        }
    }

    struct Listener {
        var namespace: String
        var path: DatabasePath
        var continuation: AsyncStream<DatabaseChangeEvent>.Continuation
        /// The namespace's last write when the feed opened: its first `put` holds that write and
        /// every one before it, so the feed hears only of later ones.
        var since: Int64
    }

    struct State {
        var namespaces: [String: Namespace] = [:]
        var triggers = DatabaseTriggerSet()
        var pushIDs = DatabasePushID()
        var listeners: [UUID: Listener] = [:]
        /// Callers of ``waitUntilNoListeners()``, resumed when the last feed closes.
        var noListenersWaiters: [CheckedContinuation<Void, Never>] = []
        var isShutDown = false
        /// The security rules for clients; `nil` leaves every read and write open.
        var rules: DatabaseRules?
    }

    /// The most events one write emits (Firebase: one write triggers at most 1000 functions).
    public static let maximumEventsPerWrite = 1000

    /// The project the emulator runs for.
    public let project: String
    /// The fewest writes between two snapshots of a namespace's tree (more when the log is
    /// still smaller than the last snapshot).
    public let snapshotInterval: Int
    /// The `location` of emitted events (and of their `source`).
    public let location: String
    /// The `firebasedatabasehost` of emitted events.
    public let databaseHost: String
    let store: EmulatorStore
    let clock: any BusClock
    let emit: @Sendable ([OutboxEntry]) -> Void
    let logger: Logger
    let state: Mutex<State>

    /// Opens the service on a store, rebuilding every namespace's tree from it.
    ///
    /// - Parameters:
    ///   - emit: called after each committed write with the events it added to the outbox.
    ///   - snapshotInterval: the fewest writes between snapshots (at least 1).
    /// - Throws: when the store cannot be read or holds data that does not parse.
    package init(
        store: EmulatorStore,
        project: String,
        clock: any BusClock,
        emit: @escaping @Sendable ([OutboxEntry]) -> Void = { _ in },
        snapshotInterval: Int = 1000,
        location: String = "us-central1",
        databaseHost: String = "firebaseio.com",
        logger: Logger = Logger(label: "emulator.database")
    ) throws {
        self.store = store
        self.project = project
        self.clock = clock
        self.emit = emit
        self.snapshotInterval = max(1, snapshotInterval)
        self.location = location
        self.databaseHost = databaseHost
        self.logger = logger
        var loaded = State()
        loaded.namespaces = try store.read { db in try Self.loadNamespaces(db) }
        state = Mutex(loaded)
    }

    /// Replaces the database triggers that writes fire (from the deployed functions).
    ///
    /// Triggers of other event types are ignored. The `ref` path pattern (or an exact `ref`
    /// filter) selects paths; an `instance` filter or pattern selects namespaces.
    public func setTriggers(_ triggers: [EventTrigger]) {
        let set = DatabaseTriggerSet(triggers)
        state.withLock { $0.triggers = set }
    }

    /// The data at `path`, rendered as the REST API returns it (`null` when absent).
    ///
    /// - Parameter query: ordering, range, limit or shallow options; `nil` reads the plain value.
    /// - Throws: `ServiceError.invalidArgument` for a bad namespace or path.
    package func get(namespace: String, path: String, query: DatabaseQuery? = nil) throws(ServiceError) -> JSONValue {
        let stored = try storedValue(namespace: namespace, path: path)
        return query.map { $0.apply(to: stored) } ?? DatabaseTree.rendered(stored)
    }

    /// The data at `path` for a REST read's query parameters (`orderBy`, `startAt`, `shallow`, ...).
    ///
    /// - Throws: `ServiceError.invalidArgument` for a bad namespace, path or query.
    public func get(namespace: String, path: String, queryParameters: [String: String]) throws(ServiceError)
        -> JSONValue
    {
        try get(namespace: namespace, path: path, query: DatabaseQuery(parameters: queryParameters))
    }

    /// The security rules clients' requests are checked against; `nil` (the default) leaves
    /// every read and write open, as the official emulator does without a rules file.
    public var rules: DatabaseRules? {
        get { state.withLock { $0.rules } }
        set { state.withLock { $0.rules = newValue } }
    }

    /// Refuses a client's read of `path` that the rules do not allow, and a query ordered by a
    /// child or value that the rules declare no `.indexOn` for; nothing when no rules are set.
    ///
    /// - Parameters:
    ///   - auth: the rules' `auth` variable (JSON `null` when signed out).
    ///   - query: the REST query parameters, for the rules' `query` variable.
    /// - Throws: `Permission denied` (401); `ServiceError.invalidArgument` for a bad path.
    public func checkRead(namespace: String, path: String, auth: JSONValue, query: [String: String] = [:])
        throws(ServiceError)
    {
        let location = try DatabasePath(path)
        let now = clock.now
        let allowed = state.withLock { state -> Bool in
            guard let rules = state.rules else { return true }
            let tree = state.namespaces[namespace]?.tree.storedValue(at: .root) ?? .null
            return rules.canRead(location, tree: tree, auth: auth, query: query, now: now)
        }
        guard allowed else { throw ServiceError.permissionDeniedByRules }
        if let orderBy = query["orderBy"].flatMap({ try? JSONValue(parsing: $0) })?.stringValue,
            let rules = self.rules, !rules.hasIndex(at: location, orderBy: orderBy)
        {
            let field = orderBy == "$value" ? ".value" : orderBy
            throw ServiceError(.invalidArgument, 
                "Index not defined, add \".indexOn\": \"\(field)\", for path \"\(location)\", to the rules")
        }
    }

    /// The ETag of the data at `path` (`null_etag` when absent).
    ///
    /// - Throws: `ServiceError.invalidArgument` for a bad namespace or path.
    public func etag(namespace: String, path: String) throws(ServiceError) -> String {
        DatabaseETag.etag(of: try storedValue(namespace: namespace, path: path))
    }

    /// The data at `path` for a REST read's query parameters together with the location's ETag,
    /// both from the same state (what a read with `X-Firebase-ETag` or `if-none-match` needs:
    /// a value and a tag read separately could belong to different writes).
    ///
    /// - Returns: the (queried) value and the ETag of the whole location (`null_etag` when absent).
    /// - Throws: `ServiceError.invalidArgument` for a bad namespace, path or query.
    public func getWithETag(namespace: String, path: String, queryParameters: [String: String] = [:])
        throws(ServiceError) -> (value: JSONValue, etag: String)
    {
        let query = try DatabaseQuery(parameters: queryParameters)
        let stored = try storedValue(namespace: namespace, path: path)
        return (query.apply(to: stored), DatabaseETag.etag(of: stored))
    }

    /// The namespaces holding data, sorted.
    public func namespaces() -> [String] {
        state.withLock { state in state.namespaces.filter { !$0.value.tree.isEmpty }.keys.sorted() }
    }

    private func storedValue(namespace: String, path: String) throws(ServiceError) -> JSONValue {
        try Self.validate(namespace: namespace)
        let location = try DatabasePath(path)
        return state.withLock { $0.namespaces[namespace]?.tree.storedValue(at: location) ?? .null }
    }

    /// Checks a namespace (database instance) name: 1–128 letters, digits, `-` or `_`.
    static func validate(namespace: String) throws(ServiceError) {
        let valid = !namespace.isEmpty && namespace.utf8.count <= 128
            && namespace.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
        guard valid else {
            throw ServiceError(.invalidArgument, 
                "Invalid namespace \"\(namespace)\": use 1 to 128 letters, digits, '-' or '_'")
        }
    }
}
