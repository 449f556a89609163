import CloudFunctions
import Synchronization

/// A ``DeliveryObserver`` that keeps every report, for assertions.
public final class RecordingObserver: DeliveryObserver {
    private let reports = Mutex<[DeliveryReport]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Every report so far, in the order they were made.
    public var all: [DeliveryReport] { reports.withLock { $0 } }

    /// The reports for one function.
    public func reports(for function: String) -> [DeliveryReport] {
        all.filter { $0.function == function }
    }

    public func deliveryFinished(_ report: DeliveryReport) {
        reports.withLock { $0.append(report) }
    }
}
