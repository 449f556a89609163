import CoreMetrics
import Foundation
import Logging
import Metrics
import OTel
import ServiceLifecycle
import Tracing

/// What a functions binary exports about itself, as the OpenTelemetry environment variables
/// name it: spans when `OTEL_TRACES_EXPORTER` is set (other than `none`) or an OTLP endpoint is
/// (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and metrics likewise
/// (`OTEL_METRICS_EXPORTER`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`). swift-otel reads the rest
/// (`OTEL_TRACES_SAMPLER`, `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_SERVICE_NAME`, ...). With none of
/// them, or `OTEL_SDK_DISABLED=true`, nothing is set up and a handler's invocation makes no span.
///
/// The emulator sets them for its workers, so their spans join its traces.
public enum WorkerTelemetry {
    /// Bootstraps swift-distributed-tracing's `InstrumentationSystem` and swift-metrics'
    /// `MetricsSystem` for what `environment` asks, once per process, after the logging system.
    ///
    /// - Returns: the services that export (run them in the worker's `ServiceGroup`, before the server).
    /// - Throws: swift-otel's error for an invalid setting (an unknown exporter, say).
    public static func bootstrap(environment: [String: String], serviceName: String) throws -> [any Service] {
        guard environment["OTEL_SDK_DISABLED"]?.lowercased() != "true" else { return [] }
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.diagnosticLogger = .custom(Logger(label: "functions.telemetry"))
        configuration.diagnosticLogLevel = .warning
        configuration.logs.enabled = false
        var services: [any Service] = []
        if names(environment, exporter: "TRACES") {
            let backend = try OTel.makeTracingBackend(configuration: configuration)
            InstrumentationSystem.bootstrap(backend.factory)
            services.append(backend.service)
        }
        if names(environment, exporter: "METRICS") {
            let backend = try OTel.makeMetricsBackend(configuration: configuration)
            MetricsSystem.bootstrap(backend.factory)
            services.append(backend.service)
        }
        return services
    }

    /// Whether the environment names an exporter for a signal (`TRACES`, `METRICS`).
    static func names(_ environment: [String: String], exporter signal: String) -> Bool {
        if let exporter = environment["OTEL_\(signal)_EXPORTER"] { return exporter.lowercased() != "none" }
        return environment["OTEL_EXPORTER_OTLP_\(signal)_ENDPOINT"] != nil || environment["OTEL_EXPORTER_OTLP_ENDPOINT"] != nil
    }
}

/// A `traceparent`/`tracestate` pair as swift-distributed-tracing injects and extracts it.
struct TraceHeaders: Injector, Extractor {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }

    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key]
    }
}

/// The metrics of one function's invocations, made once per function.
struct InvocationMetrics: Sendable {
    /// Invocations by outcome (`ok`, `skipped`, `refused`, `failed`).
    let ran, skipped, refused, failed: Counter
    /// How long handlers ran.
    let duration: Metrics.Timer
    /// Invocations running now.
    let inFlight: Meter

    init(function: String) {
        func outcome(_ name: String) -> Counter {
            Counter(label: "functions_worker_invocations_total", dimensions: [("function", function), ("outcome", name)])
        }
        ran = outcome("ok")
        skipped = outcome("skipped")
        refused = outcome("refused")
        failed = outcome("failed")
        duration = Metrics.Timer(label: "functions_worker_invocation_duration_seconds", dimensions: [("function", function)],
            preferredDisplayUnit: .seconds)
        inFlight = Meter(label: "functions_worker_invocations_in_flight", dimensions: [("function", function)])
    }
}
