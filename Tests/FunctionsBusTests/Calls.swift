import CloudEvents
import FunctionsBus
import Synchronization

/// Collects what handlers saw, from any task.
final class Calls: Sendable {
    private let entries = Mutex<[String]>([])
    var all: [String] { entries.withLock { $0 } }
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
}

/// What a failing handler throws.
struct HandlerFailure: Error, CustomStringConvertible {
    var description: String { "boom" }
}

/// Calls `finished` for each event the bus says is finished.
struct FinishObserver: DeliveryObserver {
    let finished: @Sendable (CloudEvent.Key) -> Void
    func deliveryFinished(_ report: DeliveryReport) {}
    func eventFinished(_ key: CloudEvent.Key) { finished(key) }
}
