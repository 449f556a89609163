import CloudFunctions
import CloudEvents

/// One event on its way to one function. The trigger's captured parameters are worked out
/// when an attempt starts, off the publisher's path.
struct Delivery: Sendable {
    /// The event, boxed once per publish: the deliveries of a fan-out, the queues and the
    /// in-flight table pass a pointer around instead of copying every attribute.
    final class SharedEvent: Sendable {
        let event: CloudEvent

        init(_ event: CloudEvent) {
            self.event = event
        }
    }

    let shared: SharedEvent
    var machine: DeliveryStateMachine
    var lastError: String?

    init(event: SharedEvent, machine: DeliveryStateMachine) {
        self.shared = event
        self.machine = machine
    }

    var event: CloudEvent { shared.event }
}
