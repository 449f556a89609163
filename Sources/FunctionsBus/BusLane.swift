import CloudFunctions
import CloudEvents
import DequeModule
import Foundation
import Logging
import Synchronization

/// One function as the bus sees it: what it runs, and its queue and drainers behind a lock of
/// its own, so that the drainers of different functions do not wait for one another at every
/// delivery. The bus's lock is left for what concerns every function: a retry, a dead letter, a
/// report for an observer, a timer to arm.
///
/// Lock order: code holding the bus's lock may take a lane's, never the other way round.
final class BusLane: Sendable {
    /// The queue and drainers of the function.
    struct State: Sendable {
        var queue = Deque<Delivery>()
        /// Drainer tasks alive: running a handler, between deliveries, or parked.
        var drainers = 0
        var running = 0
        /// The drainer waiting for work, if one is.
        var parked: Parked?
        /// The attempts running, by attempt id.
        var inFlight: [UInt64: InFlight] = [:]
        var nextAttemptID: UInt64 = 0

        /// Tells the parked drainer, if there is one, to end, and counts it out.
        /// - Returns: how many drainers ended (0 or 1).
        mutating func releaseParked() -> Int {
            guard let parked else { return 0 }
            parked.continuation.resume(returning: false)
            self.parked = nil
            drainers -= 1
            return 1
        }

        /// The earliest deadline of the attempts running.
        var earliestDeadline: Date? { inFlight.values.lazy.map(\.deadline).min() }
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
        var delivery: Delivery
        let deadline: Date
        let drainer: UInt64
    }

    /// The function's event handler, taken out once.
    let handle: @Sendable (CloudEvent, EventContext) async throws -> Void
    /// The options the delivery of each event needs, read once.
    let limits: DeliveryStateMachine.Limits
    let concurrency: Int
    /// What every context of the function shares: its name, trigger, Admin clients and logger.
    let invocations: EventContext.Invocations
    /// The trigger it was made with.
    let trigger: EventTrigger
    let state = Mutex(State())

    var name: String { invocations.functionName }

    init(
        name: String, trigger: EventTrigger, handle: @escaping @Sendable (CloudEvent, EventContext) async throws -> Void,
        options: FunctionOptions, admin: AdminClients, logger: Logger
    ) {
        self.trigger = trigger
        self.handle = handle
        self.limits = DeliveryStateMachine.Limits(options)
        self.concurrency = options.concurrency
        self.invocations = EventContext.Invocations(functionName: name, trigger: trigger, admin: admin, logger: logger)
    }
}
