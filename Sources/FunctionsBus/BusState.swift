import CloudFunctions
import CloudEvents
import DequeModule
import Foundation
import HeapModule

/// Everything the bus changes, behind its one lock.
struct BusState: Sendable {
    /// The queue and counters of one function.
    struct Lane: Sendable {
        var queue = Deque<Delivery>()
        /// Drainer tasks alive: running a handler, between deliveries, or parked.
        var drainers = 0
        var running = 0
        /// The drainer waiting for work, if one is.
        var parked: Parked?
    }

    /// A drainer waiting for work: resumed with `true` to take it, `false` to end.
    ///
    /// A class, so that asking whether a lane has one (at every delivery) tests a reference:
    /// the standard library's continuation has a layout hidden from other modules, and an
    /// optional of it is tested through the runtime's generic witnesses.
    final class Parked: Sendable {
        let drainer: UInt64
        let continuation: CheckedContinuation<Bool, Never>

        init(drainer: UInt64, continuation: CheckedContinuation<Bool, Never>) {
            self.drainer = drainer
            self.continuation = continuation
        }
    }

    /// An attempt that is running.
    struct InFlight: Sendable {
        let lane: Int
        var delivery: Delivery
        let deadline: Date
        let drainer: UInt64
    }

    /// A delivery waiting for its retry time, ordered by that time.
    struct PendingRetry: Sendable, Comparable {
        let due: Date
        let lane: Int
        var delivery: Delivery

        static func < (a: PendingRetry, b: PendingRetry) -> Bool { a.due < b.due }
        static func == (a: PendingRetry, b: PendingRetry) -> Bool { a.due == b.due }
    }

    var lanes: [Lane]
    var retries = Heap<PendingRetry>()
    var inFlight: [UInt64: InFlight] = [:]
    var nextAttemptID: UInt64 = 0
    /// The armed timer: its task, and the moment it wakes up.
    var timer: (task: UInt64, deadline: Date)?
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// ``EventBus/shutdown()`` calls waiting for the last drainer to end.
    var drainersGone: [CheckedContinuation<Void, Never>] = []
    /// Deliveries queued or running (not those waiting for a retry).
    var active = 0
    /// Reports handed to the observer and not yet returned from it: the bus is not idle
    /// until the observer has heard about everything that happened.
    var reportsInProgress = 0
    var deadLetters: [DeadLetter] = []
    /// How many deliveries of each accepted event are not finished yet (kept only for an observer).
    var unfinished: [CloudEvent.Key: Int] = [:]
    let deadLetterCapacity: Int
    var shuttingDown = false

    init(laneCount: Int, configuration: EventBus.Configuration) {
        lanes = Array(repeating: Lane(), count: laneCount)
        deadLetterCapacity = configuration.deadLetterCapacity
    }

    func isIdle(now: Date) -> Bool {
        guard active == 0, reportsInProgress == 0 else { return false }
        guard let due = retries.min?.due else { return true }
        return due > now
    }

    /// Moves the waiters to resume into `waiters` when the bus has become idle. (Appending an
    /// empty array of continuations, whose layout the standard library hides, is not free: it
    /// is skipped when nobody waits.)
    mutating func takeIdleWaitersIfIdle(now: Date, into waiters: inout [CheckedContinuation<Void, Never>]) {
        guard !idleWaiters.isEmpty, isIdle(now: now) else { return }
        waiters += idleWaiters
        idleWaiters = []
    }

    /// Counts a drainer as ended.
    mutating func drainerEnded(lane: Int) {
        lanes[lane].drainers -= 1
    }

    /// Tells every parked drainer to end, and counts them out.
    mutating func releaseParkedDrainers() {
        for index in lanes.indices {
            guard let parked = lanes[index].parked else { continue }
            parked.continuation.resume(returning: false)
            lanes[index].drainers -= 1
            lanes[index].parked = nil
        }
    }

    /// Whether no lane has a drainer left.
    var noDrainers: Bool { lanes.allSatisfy { $0.drainers == 0 } }

    /// The shutdown calls to resume: when shutting down and no drainer is left. Called at the
    /// end of a locked section, after any replacement drainer has been started.
    mutating func takeDrainersGoneIfDone() -> [CheckedContinuation<Void, Never>] {
        guard shuttingDown, noDrainers else { return [] }
        defer { drainersGone = [] }
        return drainersGone
    }

    mutating func addDeadLetter(_ letter: DeadLetter) {
        deadLetters.append(letter)
        if deadLetters.count > deadLetterCapacity {
            deadLetters.removeFirst(deadLetters.count - deadLetterCapacity)
        }
    }
}
