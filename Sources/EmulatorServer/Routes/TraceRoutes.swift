import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird

/// Traces: the OTLP/HTTP receiver the workers export their spans to
/// (`POST /emulator/v1/otlp/v1/traces`, the JSON encoding), and under
/// `/emulator/v1/projects/{project}` the recent traces and one trace's spans with the function
/// log lines written in it, which the console's trace view shows.
struct TraceRoutes {
    let server: EmulatorServer

    /// The receiver's path, below the emulator's base URL.
    static let receiverPath = "/emulator/v1/otlp/v1/traces"

    func add(to router: Router<EmulatorRequestContext>) {
        let traces = server.traces
        let limit = server.configuration.maxBodySize
        router.post(RouterPath(stringLiteral: String(Self.receiverPath.dropFirst()))) { request, _ in
            guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
                throw ServiceError(.unsupportedMediaType,
                    "This receiver reads OTLP's JSON encoding (Content-Type: application/json; OTEL_EXPORTER_OTLP_PROTOCOL=http/json).")
            }
            var request = request
            let body = try await request.bodyData(limit: limit)
            let spans: [RecordedSpan]
            do {
                spans = try JSONDecoder().decode(OTLPTraceData.self, from: body).recordedSpans()
            } catch {
                throw ServiceError(.invalidArgument, "Not an OTLP trace export: \(error)")
            }
            traces.add(spans)
            // ExportTraceServiceResponse: no partial success to report.
            return Response.json([:])
        }
        let (group, _) = server.emulatorProjectRoutes(of: router)
        // `{"traces": [{traceId, name, start, durationMs, spans, errors, services}]}`, newest first.
        group.get("traces") { request, _ in
            let count = request.uri.queryParameters.get("limit", as: Int.self).map { min(max($0, 1), 1000) } ?? 100
            return Response.json(["traces": .array(traces.recentTraceIds(limit: count).compactMap { id in
                Self.summary(traces.trace(id))
            })])
        }
        // `{"traceId", "spans": [...], "logs": [...]}`: 404 for a trace no longer (or never) kept.
        group.get("traces/:trace") { _, context in
            let id = try context.parameters.require("trace").lowercased()
            let spans = traces.trace(id)
            guard !spans.isEmpty else { throw ServiceError(.notFound, "No trace with id '\(id)' is kept.") }
            let logs = server.deployments.logs.entries(inTrace: id)
            let encoded = try JSONValue(parsing: JSONEncoder().encode(spans))
            return Response.json([
                "traceId": .string(id), "spans": encoded, "logs": .array(logs.map(\.json)),
            ])
        }
    }

    /// A trace in a line: its first span's name, when it started, how long it lasted, its span
    /// and failure counts, and the processes that took part.
    static func summary(_ spans: [RecordedSpan]) -> JSONValue? {
        guard let first = spans.first(where: { span in !spans.contains { $0.spanId == span.parentSpanId } }) ?? spans.first
        else { return nil }
        let start = spans.map(\.startTimeUnixNano).min() ?? 0
        let end = spans.map(\.endTimeUnixNano).max() ?? start
        return [
            "traceId": .string(first.traceId),
            "name": .string(first.name),
            "start": .string(RFC3339Timestamp.string(from: Date(timeIntervalSince1970: Double(start) / 1e9))),
            "durationMs": .number(Double(end &- start) / 1e6),
            "spans": .number(Double(spans.count)),
            "errors": .number(Double(spans.filter { $0.error != nil }.count)),
            "services": .array(Array(Set(spans.map(\.service))).sorted().map(JSONValue.string)),
        ]
    }
}
