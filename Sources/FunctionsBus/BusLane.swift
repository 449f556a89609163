import CloudFunctions
import CloudEvents
import Foundation
import Logging
import Synchronization

/// One function as the bus sees it: what it runs, and the scheduling of its deliveries behind a
/// lock of its own, so that the drainers of different functions do not wait for one another at
/// every delivery. The bus's lock is left for what concerns every function: a retry, a dead
/// letter, a report for an observer, a timer to arm.
///
/// Lock order: code holding the bus's lock may take a lane's, never the other way round.
final class BusLane: Sendable {
    /// The function's event handler, taken out once.
    let handle: @Sendable (CloudEvent, EventContext) async throws -> Void
    /// The options the delivery of each event needs, read once.
    let limits: DeliveryStateMachine.Limits
    /// What every context of the function shares: its name, trigger, Admin clients and logger.
    let invocations: EventContext.Invocations
    /// The trigger it was made with.
    let trigger: EventTrigger
    /// The queue, drainers and attempts running.
    let state: Mutex<LaneStateMachine>

    var name: String { invocations.functionName }

    init(
        name: String, trigger: EventTrigger, handle: @escaping @Sendable (CloudEvent, EventContext) async throws -> Void,
        options: FunctionOptions, admin: AdminClients, paramValues: ParamValues, logger: Logger
    ) {
        self.trigger = trigger
        self.handle = handle
        self.limits = DeliveryStateMachine.Limits(options)
        self.state = Mutex(LaneStateMachine(concurrency: options.concurrency, limits: limits))
        self.invocations = EventContext.Invocations(functionName: name, trigger: trigger, admin: admin, logger: logger,
            paramValues: paramValues)
    }
}
