import Foundation
import Synchronization

/// Runs work against wall-clock deadlines with one sleeping task for all of them.
///
/// A timeout raced by a sleeping task costs a timer, two child tasks and the thread switches
/// between them on every call. Here the work runs in one task, and its deadline is a dictionary
/// entry that a single watcher task expires: registering and removing a deadline is a lock and a
/// dictionary update, and work that ends without suspending registers none. The watcher sleeps
/// until the earliest deadline it knows of; deadlines removed before it wakes only make it look
/// again and sleep on.
///
/// Each ``SystemClock`` owns one (copies of a clock share it), so a runtime's deadlines are
/// watched by the clock it runs on, not by a process-wide singleton.
final class DeadlineWatch: Sendable {
    private struct Entry {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextTicket: UInt64 = 0
        /// When the current watcher wakes; `nil` when no watcher runs.
        var wake: ContinuousClock.Instant?
        /// The current watcher's number; an older watcher that wakes stops.
        var generation = 0
        var watcher: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// Runs `body` until `deadline`: its value, or `nil` when the deadline comes first (then
    /// `body` is cancelled, and its end is awaited). Cancelling the caller cancels `body`.
    func run<T: Sendable>(
        until deadline: Date,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        let interval = deadline.timeIntervalSinceNow
        guard interval > 0 else {
            try Task.checkCancellation()
            return nil
        }
        let expiry = ContinuousClock.now.advanced(by: .seconds(interval))
        // The body starts on this thread and, if it never suspends, ends before the task is
        // awaited: no thread switch for a handler that does not wait on anything, and no
        // deadline to watch, since nothing could have cancelled it.
        let ended = EndFlag()
        let task: Task<T, any Error>
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            task = Task.immediate {
                defer { ended.set() }
                return try await body()
            }
        } else {
            task = Task { try await body() }
        }
        if ended.isSet {
            let result = await task.result
            // It ran to its end on this thread; past the deadline it has still timed out.
            guard ContinuousClock.now < expiry else { return nil }
            return try result.get()
        }
        let ticket = watch(until: expiry) { task.cancel() }
        let result = await withTaskCancellationHandler { await task.result } onCancel: { task.cancel() }
        guard remove(ticket) else { return nil }
        return try result.get()
    }

    /// Set once a body has returned or thrown.
    private final class EndFlag: Sendable {
        private let ended = Atomic(false)
        var isSet: Bool { ended.load(ordering: .acquiring) }
        func set() { ended.store(true, ordering: .releasing) }
    }

    /// Calls `expire` at `deadline` unless ``remove(_:)`` comes first; returns the ticket.
    private func watch(until deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (ticket, replaced) = state.withLock { state -> (UInt64, Task<Void, Never>??) in
            let ticket = state.nextTicket
            state.nextTicket += 1
            state.entries[ticket] = Entry(deadline: deadline, expire: expire)
            if let wake = state.wake, wake <= deadline { return (ticket, nil) }
            // No watcher, or one that sleeps past this deadline: a new one takes over.
            state.generation += 1
            state.wake = deadline
            let replaced = state.watcher
            let generation = state.generation
            state.watcher = Task.detached { await self.expireDue(from: deadline, generation: generation) }
            return (ticket, .some(replaced))
        }
        if case .some(let old?) = replaced { old.cancel() }
        return ticket
    }

    /// Forgets a deadline; returns `false` when it had already expired.
    private func remove(_ ticket: UInt64) -> Bool {
        state.withLock { $0.entries.removeValue(forKey: ticket) } != nil
    }

    /// The watcher: sleeps until `first`, expires what is due, and goes on while deadlines remain.
    private func expireDue(from first: ContinuousClock.Instant, generation: Int) async {
        var target = first
        while true {
            try? await Task.sleep(until: target, clock: .continuous)
            let (due, next) = state.withLock { state -> ([Entry], ContinuousClock.Instant?) in
                let now = ContinuousClock.now
                let due = state.entries.filter { $0.value.deadline <= now }
                for ticket in due.keys { state.entries.removeValue(forKey: ticket) }
                guard state.generation == generation else { return (Array(due.values), nil) }
                let next = state.entries.values.lazy.map(\.deadline).min()
                state.wake = next
                if next == nil { state.watcher = nil }
                return (Array(due.values), next)
            }
            for entry in due { entry.expire() }
            guard let next else { return }
            target = next
        }
    }
}
