import Synchronization

/// A value found once and kept while it stays usable: callers that ask while it is being found
/// wait for that one search; a search that fails is forgotten, so the next caller searches again.
package final class ResolvedOnce<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var search: Task<Value, any Error>?
    }

    private let state = Mutex(State())
    private let find: @Sendable () async throws -> Value

    package init(_ find: @escaping @Sendable () async throws -> Value) {
        self.find = find
    }

    /// The value at hand if `isUsable` says so, else one found now (by the search on its way,
    /// or a new one). The value a search finds goes to its callers as it is.
    package func value(while isUsable: (Value) -> Bool = { _ in true }) async throws -> Value {
        let kept = state.withLock { state -> Value? in
            guard let value = state.value, isUsable(value) else { return nil }
            return value
        }
        if let kept { return kept }
        return try await search().value
    }

    /// Forgets the value at hand if `matches` says so: the next caller searches again.
    package func forget(where matches: (Value) -> Bool) {
        state.withLock { state in
            if let value = state.value, matches(value) { state.value = nil }
        }
    }

    private func search() -> Task<Value, any Error> {
        state.withLock { state in
            if let search = state.search { return search }
            let search = Task { [find] in
                do {
                    let value = try await find()
                    self.state.withLock { $0.value = value; $0.search = nil }
                    return value
                } catch {
                    self.state.withLock { $0.search = nil }
                    throw error
                }
            }
            state.search = search
            return search
        }
    }
}
