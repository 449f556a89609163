import CloudFunctions
import CloudEvents

/// One event on its way to one function.
struct Delivery: Sendable {
    let event: CloudEvent
    let params: [String: String]
    var machine: DeliveryStateMachine
    var lastError: String?
}
