import CloudEvents
import DequeModule
import Foundation

/// The scheduling of one function's deliveries, as a value: its queue, its drainers (tasks that
/// run its handlers one delivery after another) and the attempts running. Its methods decide
/// and answer what the bus is to do (start a drainer, wake the parked one, run an attempt, end
/// a drainer), as ``DeliveryStateMachine`` does for one delivery; the bus keeps it behind its
/// lane's lock and carries the actions out.
///
/// Drainers take deliveries one after another, so under load one task serves many events.
/// Another drainer is needed only when work is queued and every drainer is busy running a
/// handler: checked when work arrives and each time a drainer starts an attempt, so busy
/// (suspended) handlers grow the number of drainers up to the concurrency limit while fast ones
/// are served by few. A parked drainer is woken first; a new one is started only when none is
/// parked.
struct LaneStateMachine: Sendable {
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
        var delivery: Delivery
        let deadline: Date
        let drainer: UInt64
    }

    /// An attempt a drainer runs: which attempt it is. The delivery itself stays in the
    /// in-flight record (the timer needs it if the attempt times out); the drainer takes only
    /// the event's reference, which it moves into the handler's context.
    struct Attempt {
        let id: UInt64
        let number: Int
        let deadline: Date
    }

    /// Who takes the work queued.
    enum Scheduling {
        /// The drainers there are will.
        case none
        /// Wake the parked drainer.
        case wake(Parked)
        /// Start a drainer; it is counted in already.
        case startDrainer
    }

    /// What a drainer does next.
    enum Next {
        /// Run this attempt, after scheduling the work still queued.
        case run(Attempt, CloudEvent, Scheduling)
        /// The queue is empty: wait for work as the lane's parked drainer.
        case park
        /// End: the queue is empty and another drainer is parked, or the bus shuts down. The
        /// drainer is counted out of the lane.
        case stop
    }

    /// What a drainer about to park does.
    enum Parking {
        /// Work arrived meanwhile: take it.
        case takeWork
        /// End (counted out of the lane): the bus shuts down, the drainer is cancelled, or
        /// another drainer is parked already.
        case end
        /// Wait: the drainer is the lane's parked one.
        case parked
    }

    private var queue = Deque<Delivery>()
    /// Drainer tasks alive: running a handler, between deliveries, or parked.
    private(set) var drainers = 0
    private var running = 0
    /// The drainer waiting for work, if one is.
    private var parked: Parked?
    /// The attempts running, by attempt id.
    private var inFlight: [UInt64: InFlight] = [:]
    private var nextAttemptID: UInt64 = 0
    let concurrency: Int
    let limits: DeliveryStateMachine.Limits

    init(concurrency: Int, limits: DeliveryStateMachine.Limits) {
        self.concurrency = concurrency
        self.limits = limits
    }

    /// Queues the deliveries `append` adds (each made in its place in the queue, not copied in).
    @inline(__always)
    mutating func enqueue(_ append: (inout Deque<Delivery>) -> Void) -> Scheduling {
        append(&queue)
        return schedule()
    }

    @inline(__always)
    private mutating func schedule() -> Scheduling {
        let idle = parked == nil ? 0 : 1
        guard !queue.isEmpty, drainers - idle == running else { return .none }
        if let parked {
            self.parked = nil
            return .wake(parked)
        }
        guard drainers < concurrency else { return .none }
        drainers += 1
        return .startDrainer
    }

    /// Ends attempt `id`: its delivery, or `nil` when it timed out already (its drainer was
    /// replaced and is to end).
    @inline(__always)
    mutating func finish(_ id: UInt64) -> Delivery? {
        guard let entry = inFlight.removeValue(forKey: id) else { return nil }
        running -= 1
        return entry.delivery
    }

    /// What drainer `drainer` does next, at `now`: deliveries too old to start are moved to
    /// `expired` on the way.
    @inline(__always)
    mutating func next(drainer: UInt64, now: Date, closing: Bool, expired: inout [Delivery]) -> Next {
        while var delivery = queue.popFirst() {
            switch delivery.machine.start(now: now, limits: limits) {
            case .expire:
                expired.append(delivery)
            case .run(let number, let deadline):
                let attempt = Attempt(id: nextAttemptID, number: number, deadline: deadline)
                nextAttemptID += 1
                running += 1
                let event = delivery.event
                inFlight[attempt.id] = InFlight(delivery: consume delivery, deadline: deadline, drainer: drainer)
                return .run(attempt, event, schedule())
            }
        }
        guard closing || parked != nil else { return .park }
        drainers -= 1
        return .stop
    }

    /// Parks drainer `drainer` with `continuation`, unless there is work or it is to end. A
    /// drainer that is neither parked nor running (between deliveries) always looks at the
    /// queue here before it parks or ends, so work left to it is never stranded.
    mutating func park(
        drainer: UInt64, continuation: CheckedContinuation<Bool, Never>, closing: Bool, cancelled: Bool
    ) -> Parking {
        if !queue.isEmpty { return .takeWork }
        if closing || parked != nil || cancelled {
            drainers -= 1
            return .end
        }
        parked = Parked(drainer: drainer, continuation: continuation)
        return .parked
    }

    /// Unparks drainer `drainer`, cancelled, counting it out: the parked drainer to tell to end,
    /// if it was that one.
    mutating func cancelPark(drainer: UInt64) -> Parked? {
        guard let parked, parked.drainer == drainer else { return nil }
        self.parked = nil
        drainers -= 1
        return parked
    }

    /// Unparks the parked drainer, if any, counting it out: the bus shuts down or goes away.
    mutating func releaseParked() -> Parked? {
        guard let parked else { return nil }
        self.parked = nil
        drainers -= 1
        return parked
    }

    /// Fails every attempt past its deadline: each one's drainer is counted out (the bus cancels
    /// it), and a drainer is scheduled in its place for the work queued.
    ///
    /// - Returns: the attempts overdue, and the scheduling of their replacements.
    mutating func timeOut(now: Date) -> (overdue: [InFlight], replacements: [Scheduling]) {
        let overdue = inFlight.filter { $0.value.deadline <= now }
        var replacements: [Scheduling] = []
        for attemptID in overdue.keys {
            inFlight[attemptID] = nil
            running -= 1
            drainers -= 1
            replacements.append(schedule())
        }
        return (Array(overdue.values), replacements)
    }

    /// The earliest deadline of the attempts running.
    var earliestDeadline: Date? { inFlight.values.lazy.map(\.deadline).min() }

    /// The drainers running an attempt.
    var runningDrainers: [UInt64] { inFlight.values.map(\.drainer) }
}
