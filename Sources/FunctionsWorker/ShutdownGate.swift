import Synchronization

/// Counts the events a worker is handling and, once it is closed for shutdown, refuses new
/// ones and tells when the last one has finished.
final class ShutdownGate: Sendable {
    private struct State {
        var isClosed = false
        var inFlight = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Whether the gate refuses new events.
    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// The number of events being handled.
    var inFlight: Int { state.withLock { $0.inFlight } }

    /// Admits one event, unless the gate is closed; each `true` must be paired with ``leave()``.
    func enter() -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.inFlight += 1
            return true
        }
    }

    /// Admits one more event on behalf of one already admitted (the gate may be closed since),
    /// for work that goes on once the route has returned its response: a batch's events, a
    /// streamed answer. The hold is let go once, by ``Hold/release()``, or when it is dropped
    /// (Hummingbird drops a response body it never writes, as when the client has gone).
    func hold() -> Hold {
        state.withLock { $0.inFlight += 1 }
        return Hold(gate: self)
    }

    /// An event's place in the gate, kept while its answer is written.
    final class Hold: Sendable {
        private let gate: ShutdownGate
        private let released = Atomic<Bool>(false)

        fileprivate init(gate: ShutdownGate) {
            self.gate = gate
        }

        /// Marks the event finished; later calls do nothing.
        func release() {
            if !released.exchange(true, ordering: .acquiringAndReleasing) { gate.leave() }
        }

        deinit { release() }
    }

    /// Marks one admitted event finished.
    func leave() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Refuses every event from now on.
    func close() {
        state.withLock { $0.isClosed = true }
    }

    /// Waits until no event is being handled, or the calling task is cancelled.
    func waitUntilIdle() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    guard state.inFlight > 0, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Waits until no event is being handled, for at most `limit`; returns whether it is idle.
    func waitUntilIdle(atMost limit: Duration) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitUntilIdle() }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
        return inFlight == 0
    }
}
