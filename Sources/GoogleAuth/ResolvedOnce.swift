import Synchronization

/// A value found once and kept while it stays usable: callers that ask while it is being found
/// wait for that one search; a search that fails is forgotten, so the next caller searches
/// again. A caller whose task is cancelled stops waiting at once; the search goes on for the others.
package final class ResolvedOnce<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var searching = false
        var waiters: [Int: CheckedContinuation<Value, any Error>] = [:]
        var nextWaiter = 0
    }

    /// What a caller does after one look under the lock.
    private enum Next {
        case kept(Value), cancelled, wait, search
    }

    private let state = Mutex(State())
    private let find: @Sendable () async throws -> Value

    package init(_ find: @escaping @Sendable () async throws -> Value) {
        self.find = find
    }

    /// The value at hand, whether usable or not; `nil` before the first search succeeds.
    package var current: Value? { state.withLock { $0.value } }

    /// The value at hand if `isUsable` says so, else one found now (by the search on its way,
    /// or a new one). The value a search finds goes to its callers as it is.
    package func value(while isUsable: (Value) -> Bool = { _ in true }) async throws -> Value {
        // The usual case, a usable value at hand, takes the lock once and no continuation.
        let (kept, id) = state.withLock { state -> (Value?, Int) in
            if let value = state.value, isUsable(value) { return (value, 0) }
            defer { state.nextWaiter += 1 }
            return (nil, state.nextWaiter)
        }
        if let kept { return kept }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                // One look under the lock: the value, or the search on its way, or a new one.
                let next = state.withLock { state -> Next in
                    if let value = state.value, isUsable(value) { return .kept(value) }
                    if Task.isCancelled { return .cancelled }
                    state.waiters[id] = continuation
                    if state.searching { return .wait }
                    state.searching = true
                    return .search
                }
                switch next {
                case .kept(let value): continuation.resume(returning: value)
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .wait: break
                case .search: Task { await self.search() }
                }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Forgets the value at hand if `matches` says so: the next caller searches again.
    package func forget(where matches: (Value) -> Bool) {
        state.withLock { state in
            if let value = state.value, matches(value) { state.value = nil }
        }
    }

    /// Finds the value and hands it, or the failure, to every caller waiting then.
    private func search() async {
        let result: Result<Value, any Error>
        do {
            result = .success(try await find())
        } catch {
            result = .failure(error)
        }
        let waiters = state.withLock { state in
            if case .success(let value) = result { state.value = value }
            state.searching = false
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume(with: result) }
    }
}
