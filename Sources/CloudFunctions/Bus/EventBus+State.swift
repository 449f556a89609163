import CloudEvents
import Foundation

/// One function as the bus sees it.
struct LaneDefinition: Sendable {
    let name: String
    let function: CloudFunction
}

/// One event on its way to one function.
struct Delivery: Sendable {
    let event: CloudEvent
    let params: [String: String]
    var machine: DeliveryStateMachine
    var lastError: String?
}

/// The queue and counters of one function.
struct Lane: Sendable {
    var queue: [Delivery] = []
    var head = 0
    var drainers = 0
    var running = 0

    var queued: Int { queue.count - head }

    mutating func pop() -> Delivery? {
        guard head < queue.count else { return nil }
        let delivery = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return delivery
    }
}

/// An attempt that is running.
struct InFlight: Sendable {
    let lane: Int
    var delivery: Delivery
    let deadline: Date
    let drainer: UInt64
}

/// A delivery waiting for its retry time.
struct PendingRetry: Sendable {
    let due: Date
    let lane: Int
    var delivery: Delivery
}

/// Everything the bus changes, behind its one lock.
struct BusState: Sendable {
    var lanes: [Lane]
    var retries = RetryQueue()
    var inFlight: [UInt64: InFlight] = [:]
    var nextAttemptID: UInt64 = 0
    var nextDrainerID: UInt64 = 0
    var drainers: [UInt64: Task<Void, Never>] = [:]
    var timer: Task<Void, Never>?
    var timerDeadline: Date?
    var timerGeneration: UInt64 = 0
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
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
        guard let due = retries.earliest?.due else { return true }
        return due > now
    }

    /// The waiters to resume when the bus has become idle.
    mutating func takeIdleWaitersIfIdle(now: Date) -> [CheckedContinuation<Void, Never>] {
        guard !idleWaiters.isEmpty, isIdle(now: now) else { return [] }
        defer { idleWaiters = [] }
        return idleWaiters
    }

    mutating func addDeadLetter(_ letter: DeadLetter) {
        deadLetters.append(letter)
        if deadLetters.count > deadLetterCapacity {
            deadLetters.removeFirst(deadLetters.count - deadLetterCapacity)
        }
    }
}

/// Pending retries ordered by due time (a binary min-heap).
struct RetryQueue: Sendable {
    private var heap: [PendingRetry] = []

    var earliest: PendingRetry? { heap.first }
    var isEmpty: Bool { heap.isEmpty }

    mutating func insert(_ retry: PendingRetry) {
        heap.append(retry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popEarliest() -> PendingRetry? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let earliest = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return earliest
    }
}
