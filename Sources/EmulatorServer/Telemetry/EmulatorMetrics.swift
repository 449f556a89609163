import CoreMetrics
import Foundation
import Metrics
import Prometheus
import Synchronization

/// The emulator's metrics: recorded through swift-metrics on a Prometheus registry of the
/// emulator's own (not the process's global one, so that emulators sharing a process, as in
/// tests, keep theirs apart), which `GET /metrics` renders in the Prometheus text format.
///
/// - `functions_delivery_attempts_total{function,outcome}`: delivery attempts by how they
///   ended: `ok`, `skipped` (outside the trigger's path), `failed`, `cancelled` (timed out, or
///   the emulator stopping).
/// - `functions_delivery_retries_total{function}`: the attempts after an event's first.
/// - `functions_delivery_attempt_duration_seconds{function}`: a histogram of attempts' durations.
/// - `functions_deliveries_in_flight{function}`: attempts running now.
/// - `functions_dead_letters{function}`, `functions_instances{function}` and
///   `functions_outbox_pending_events`: read when scraped.
public final class EmulatorMetrics: Sendable {
    /// The registry `GET /metrics` renders.
    public let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let functions = Mutex<[String: FunctionDelivery]>([:])
    /// The functions the scraped gauges were given for, so that one no longer deployed reads 0.
    private let scraped = Mutex<Set<String>>([])

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
            .seconds(10), .seconds(30), .seconds(60), .seconds(540),
        ]
        self.factory = factory
    }

    /// One function's delivery metrics, made on first use.
    struct FunctionDelivery: Sendable {
        let ok, skipped, failed, cancelled, retries: CoreMetrics.Counter
        let duration: Metrics.Timer
        let inFlight: CoreMetrics.Meter

        init(function: String, factory: any MetricsFactory) {
            func attempts(_ outcome: String) -> CoreMetrics.Counter {
                CoreMetrics.Counter(label: "functions_delivery_attempts_total", dimensions: [("function", function), ("outcome", outcome)],
                    factory: factory)
            }
            ok = attempts("ok")
            skipped = attempts("skipped")
            failed = attempts("failed")
            cancelled = attempts("cancelled")
            retries = CoreMetrics.Counter(label: "functions_delivery_retries_total", dimensions: [("function", function)], factory: factory)
            duration = Metrics.Timer(label: "functions_delivery_attempt_duration_seconds", dimensions: [("function", function)],
                preferredDisplayUnit: .seconds, factory: factory)
            inFlight = Meter(label: "functions_deliveries_in_flight", dimensions: [("function", function)], factory: factory)
        }
    }

    func delivery(of function: String) -> FunctionDelivery {
        functions.withLock { known in
            if let found = known[function] { return found }
            let made = FunctionDelivery(function: function, factory: factory)
            known[function] = made
            return made
        }
    }

    /// The metrics in the Prometheus text format, with the gauges read now.
    func render(deadLetters: [String: Int], instances: [String: Int], outboxPending: Int) -> [UInt8] {
        var deadLetters = deadLetters
        var instances = instances
        let gone = scraped.withLock { scraped in
            defer { scraped = Set(instances.keys).union(deadLetters.keys) }
            return scraped.subtracting(instances.keys).subtracting(deadLetters.keys)
        }
        for function in gone {
            deadLetters[function] = 0
            instances[function] = 0
        }
        for (function, count) in deadLetters {
            CoreMetrics.Gauge(label: "functions_dead_letters", dimensions: [("function", function)], factory: factory).record(count)
        }
        for (function, count) in instances {
            CoreMetrics.Gauge(label: "functions_instances", dimensions: [("function", function)], factory: factory).record(count)
        }
        CoreMetrics.Gauge(label: "functions_outbox_pending_events", factory: factory).record(outboxPending)
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return bytes
    }
}
