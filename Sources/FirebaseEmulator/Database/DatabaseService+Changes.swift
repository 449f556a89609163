import CloudFunctions
import Foundation
import Synchronization

extension DatabaseService {
    /// Follows the data at `path`: first a `put` at `/` with the current value, then a `put`
    /// or `patch` for every later write that changes data at, above or below `path`, in
    /// commit order, with paths relative to `path` (the REST streaming protocol).
    ///
    /// The stream ends at ``shutdown()``; when the consumer stops, the listener is removed.
    /// - Throws: `ServiceError.invalidArgument` for a bad namespace or path.
    public func changes(namespace: String, path: String) throws(ServiceError) -> AsyncStream<DatabaseChangeEvent> {
        try Self.validate(namespace: namespace)
        let location = try DatabasePath(path)
        let (stream, continuation) = AsyncStream.makeStream(of: DatabaseChangeEvent.self)
        let id = UUID()
        let registered = state.withLock { state -> Bool in
            guard !state.isShutDown else { return false }
            let space = state.namespaces[namespace]
            continuation.yield(DatabaseChangeEvent(event: .put, path: "/", data: space?.tree.value(at: location) ?? .null))
            state.listeners[id] = Listener(namespace: namespace, path: location, continuation: continuation,
                since: space?.log.sequence ?? 0)
            return true
        }
        guard registered else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            let waiters = self?.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.listeners.removeValue(forKey: id)
                guard state.listeners.isEmpty else { return [] }
                defer { state.noListenersWaiters = [] }
                return state.noListenersWaiters
            }
            for waiter in waiters ?? [] { waiter.resume() }
        }
        return stream
    }

    /// Returns once no change feed is open (a server notices a client gone at its next frame).
    package func waitUntilNoListeners() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let none = state.withLock { state -> Bool in
                guard !state.listeners.isEmpty else { return true }
                state.noListenersWaiters.append(continuation)
                return false
            }
            if none { continuation.resume() }
        }
    }

    /// Ends every change feed; later feeds end at once.
    public func shutdown() {
        let (listeners, waiters) = state.withLock { state in
            state.isShutDown = true
            defer {
                state.listeners = [:]
                state.noListenersWaiters = []
            }
            return (Array(state.listeners.values), state.noListenersWaiters)
        }
        for listener in listeners { listener.continuation.finish() }
        for waiter in waiters { waiter.resume() }
    }

    /// How many change feeds are open.
    public var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// Sends a committed write (the namespace's write `sequence`) to the feeds it concerns that
    /// opened before it was made.
    func notifyListeners(
        _ listeners: [UUID: Listener], namespace: String, sequence: Int64, change: DatabaseWriteChange,
        isUpdate: Bool, tree: DatabaseTree
    ) {
        for listener in listeners.values where listener.namespace == namespace && listener.since < sequence {
            if let event = Self.feedEvent(at: listener.path, change: change, isUpdate: isUpdate, tree: tree) {
                listener.continuation.yield(event)
            }
        }
    }

    /// What a listener at `location` sees of a write; `nil` when the write does not concern it.
    static func feedEvent(at location: DatabasePath, change: DatabaseWriteChange, isUpdate: Bool, tree: DatabaseTree)
        -> DatabaseChangeEvent?
    {
        if let relative = location.relativePath(to: change.path) {
            guard isUpdate else {
                return DatabaseChangeEvent(
                    event: .put, path: relative.description, data: DatabaseTree.rendered(change.after))
            }
            let data = children(change.writtenPaths, below: change.path, change)
            return DatabaseChangeEvent(event: .patch, path: relative.description, data: data)
        }
        guard change.path.isAncestor(of: location) else { return nil }
        if change.writtenPaths.contains(where: { $0.contains(location) }) {
            let after = tree.storedValue(at: location)
            guard change.before(at: location, in: tree) != after else { return nil }
            return DatabaseChangeEvent(event: .put, path: "/", data: DatabaseTree.rendered(after))
        }
        let below = change.writtenPaths.filter { location.isAncestor(of: $0) }
        guard !below.isEmpty else { return nil }
        return DatabaseChangeEvent(event: .patch, path: "/", data: children(below, below: location, change))
    }

    /// The patch object: each written location relative to `base`, with its new value.
    private static func children(_ written: [DatabasePath], below base: DatabasePath, _ change: DatabaseWriteChange)
        -> JSONValue
    {
        var members: [String: JSONValue] = [:]
        for path in written {
            let key = base.relativePath(to: path)?.segments.joined(separator: "/") ?? ""
            members[key] = DatabaseTree.rendered(change.after(at: path) ?? .null)
        }
        return .object(members)
    }
}
