import CloudEvents
import CloudFunctions
import FunctionsBus
import Synchronization

/// A `DeliveryObserver` that keeps every report and every finished event, for assertions.
public final class RecordingObserver: DeliveryObserver {
    private let reports = Mutex<[DeliveryReport]>([])
    private let finishedKeys = Mutex<[CloudEvent.Key]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Every report so far, in the order they were made.
    public var all: [DeliveryReport] { reports.withLock { $0 } }

    /// The reports for one function.
    public func reports(for function: String) -> [DeliveryReport] {
        all.filter { $0.function == function }
    }

    /// The events finished for every function, in the order the bus said so.
    public var finished: [CloudEvent.Key] { finishedKeys.withLock { $0 } }

    public func deliveryFinished(_ report: DeliveryReport) {
        reports.withLock { $0.append(report) }
    }

    public func eventFinished(_ key: CloudEvent.Key) {
        finishedKeys.withLock { $0.append(key) }
    }
}
