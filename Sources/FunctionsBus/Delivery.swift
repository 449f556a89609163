import CloudFunctions
import CloudEvents

/// One event on its way to one function. The trigger's captured parameters are worked out
/// only when the handler reads `context.params`, off the publisher's path. The deliveries of a
/// fan-out share the event's storage (a `CloudEvent` copies as one reference).
struct Delivery: Sendable {
    let event: CloudEvent
    var machine: DeliveryStateMachine
    var lastError: String?

    init(event: CloudEvent, machine: DeliveryStateMachine) {
        self.event = event
        self.machine = machine
    }
}
