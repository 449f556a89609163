import Synchronization

/// Child tasks started from anywhere that live as children of one ``run()``: each can be
/// cancelled by its id and awaited, and `run()` returns only once all of them have ended.
///
/// It is how the bus runs its drainers and timer, and how the emulator runs its worker
/// supervisors, inside structured concurrency while starting them from synchronous code.
package final class TaskScope: Sendable {
    /// Identifies one child.
    package typealias ID = UInt64

    private struct Child {
        /// The child's watcher, waiting to hear that the child is cancelled or has ended.
        var watcher: CheckedContinuation<Void, Never>?
        var cancelled = false
        /// Callers of ``wait(for:)``.
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct Spawn: Sendable {
        let id: ID
        let work: @Sendable (ID) async -> Void
    }

    private struct State {
        var nextID: ID = 0
        /// Children started and not yet ended.
        var children: [ID: Child] = [:]
        /// Whether ``run()`` runs (or has run): a second call waits for the first to end.
        var started = false
        var ended = false
        /// Second callers of ``run()``, waiting for the first to end.
        var runWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())
    private let stream: AsyncStream<Spawn>
    private let spawns: AsyncStream<Spawn>.Continuation

    /// Creates a scope; its children run once ``run()`` does.
    package init() {
        (stream, spawns) = AsyncStream.makeStream(of: Spawn.self)
    }

    /// Starts `work` (which gets its own id) as a child of ``run()``; once the scope has
    /// finished, it never runs.
    @discardableResult
    package func spawn(_ work: @escaping @Sendable (ID) async -> Void) -> ID {
        start(work).id
    }

    /// Starts `work` as a child of ``run()``, as ``spawn(_:)`` does; `nil` when the scope has
    /// finished and it will never run.
    package func spawnIfRunning(_ work: @escaping @Sendable (ID) async -> Void) -> ID? {
        let (id, accepted) = start(work)
        return accepted ? id : nil
    }

    /// Hands `work` to ``run()`` under a new id; not accepted once the scope has finished.
    private func start(_ work: @escaping @Sendable (ID) async -> Void) -> (id: ID, accepted: Bool) {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.children[state.nextID] = Child()
            return state.nextID
        }
        guard case .terminated = spawns.yield(Spawn(id: id, work: work)) else { return (id, true) }
        // The scope has finished: the work never runs, and nobody may wait for it.
        ended(id)
        return (id, false)
    }

    /// Cancels child `id`, if it has not ended.
    package func cancel(_ id: ID) {
        let watcher = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.children[id]?.cancelled = true
            defer { state.children[id]?.watcher = nil }
            return state.children[id]?.watcher
        }
        watcher?.resume()
    }

    /// Returns once child `id` has ended.
    package func wait(for id: ID) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state -> Bool in
                guard state.children[id] != nil else { return true }
                state.children[id]?.endWaiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// Runs the children until ``finish()`` (or until the calling task is cancelled); those still
    /// running then are cancelled, and it returns once every child has ended. Children started
    /// after that never run. Called again while it runs (a service run both by a test and by
    /// its group), it waits for the first call to end, or for its own task's cancellation.
    ///
    /// - Returns: whether this call ran the children (`false` for a later call that waited).
    @discardableResult
    package func run() async -> Bool {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else {
            await waitForRunToEnd()
            return false
        }
        defer {
            let waiters = state.withLock { state in
                state.ended = true
                defer { state.runWaiters = [:] }
                return state.runWaiters.values
            }
            for waiter in waiters { waiter.resume() }
        }
        await withDiscardingTaskGroup { group in
            for await spawn in stream {
                group.addTask {
                    await withTaskGroup(of: Void.self) { child in
                        child.addTask {
                            await spawn.work(spawn.id)
                            self.ended(spawn.id)
                        }
                        // Returns when the child is cancelled (then its work is) or has ended.
                        await self.watch(spawn.id)
                        child.cancelAll()
                    }
                }
            }
            group.cancelAll()
        }
        spawns.finish()   // a run ended by cancellation takes no more children either
        return true
    }

    private func waitForRunToEnd() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ended = state.withLock { state -> Bool in
                    if state.ended || Task.isCancelled { return true }
                    state.runWaiters[id] = continuation
                    return false
                }
                if ended { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.runWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Ends ``run()``: no child starts from now on, and those running are cancelled.
    package func finish() {
        spawns.finish()
    }

    private func watch(_ id: ID) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state -> Bool in
                    guard let child = state.children[id], !child.cancelled else { return true }
                    state.children[id]?.watcher = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            cancel(id)
        }
    }

    private func ended(_ id: ID) {
        let child = state.withLock { $0.children.removeValue(forKey: id) }
        child?.watcher?.resume()
        for waiter in child?.endWaiters ?? [] { waiter.resume() }
    }
}
