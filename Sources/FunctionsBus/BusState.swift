import CloudFunctions
import CloudEvents
import Foundation
import HeapModule

/// What the bus shares across its functions, behind the bus's lock: retries, the timer,
/// dead letters and who waits. Each function's queue and drainers are in its ``BusLane``, and
/// the counts read on every delivery are atomics of ``EventBus``.
struct BusState: Sendable {
    /// A delivery waiting for its retry time, ordered by that time.
    struct PendingRetry: Sendable, Comparable {
        let due: Date
        let lane: Int
        var delivery: Delivery

        static func < (a: PendingRetry, b: PendingRetry) -> Bool { a.due < b.due }
        static func == (a: PendingRetry, b: PendingRetry) -> Bool { a.due == b.due }
    }

    var retries = Heap<PendingRetry>()
    /// The armed timer: its task, and the moment it wakes up.
    var timer: (task: UInt64, deadline: Date)?
    /// ``EventBus/waitUntilIdle(includingRetries:)`` calls waiting, by a number of their own
    /// (to take one out when its task is cancelled).
    var idleWaiters: [UInt64: IdleWaiter] = [:]

    /// A caller waiting for the bus to be idle; with `includingRetries`, for no retry to be
    /// scheduled either.
    struct IdleWaiter {
        var continuation: CheckedContinuation<Void, Never>
        var includingRetries: Bool
    }
    /// ``EventBus/shutdown()`` calls waiting for the last drainer to end.
    var drainersGone: [CheckedContinuation<Void, Never>] = []
    /// Reports handed to the observer and not yet returned from it: the bus is not idle
    /// until the observer has heard about everything that happened.
    var reportsInProgress = 0
    var deadLetters: [DeadLetter] = []
    /// The ids of dead letters the observer has not heard of yet: not listed nor replayable.
    var unlistedDeadLetters: Set<String> = []
    /// How many deliveries of each accepted event are not finished yet (kept only for an observer).
    var unfinished: [CloudEvent.Key: Int] = [:]
    let deadLetterCapacity: Int
    var shuttingDown = false

    init(configuration: EventBus.Configuration) {
        deadLetterCapacity = configuration.deadLetterCapacity
    }

    mutating func addDeadLetter(_ letter: DeadLetter) {
        deadLetters.append(letter)
        if deadLetters.count > deadLetterCapacity {
            deadLetters.removeFirst(deadLetters.count - deadLetterCapacity)
        }
    }

    /// The dead letters listed: those the observer has heard of.
    var listedDeadLetters: [DeadLetter] {
        unlistedDeadLetters.isEmpty ? deadLetters : deadLetters.filter { !unlistedDeadLetters.contains($0.id) }
    }
}
