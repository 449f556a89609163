import FirebaseHTTP
import Foundation
import Logging
import ServiceLifecycle

/// Sends the spans the emulator keeps (its own and its workers') to an OTLP/HTTP endpoint
/// (`functions emulators:start --otlp URL`), in the JSON encoding, in batches of up to 512 as
/// they come. An endpoint that does not answer 2xx loses that batch, with a warning; the
/// emulator never waits for it.
public struct OTLPExporter: Service {
    /// Where the spans go: the URL given, with `/v1/traces` added unless its path already ends so.
    public let endpoint: URL
    let store: TraceStore
    let logger: Logger

    public init(endpoint: URL, store: TraceStore, logger: Logger) {
        self.endpoint = endpoint.path.hasSuffix("/v1/traces")
            ? endpoint : endpoint.appendingPathComponent("v1").appendingPathComponent("traces")
        self.store = store
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var warned = false
            while !Task.isCancelled {
                let (spans, dropped) = await store.takeQueued(limit: 512)
                if dropped > 0 { logger.warning("otlp: \(dropped) spans dropped: \(endpoint) did not keep up") }
                if !spans.isEmpty { await send(spans, warned: &warned) }
            }
        }
        // What is queued at shutdown goes too, without waiting for more.
        var warned = false
        while let (spans, _) = store.takeQueuedNow(limit: 512) { await send(spans, warned: &warned) }
    }

    private func send(_ spans: [RecordedSpan], warned: inout Bool) async {
        do {
            let body = try JSONEncoder().encode(OTLPTraceData(spans))
            let answer = try await HTTPExchange.send("POST", endpoint,
                headers: [("Content-Type", "application/json")], body: body, timeout: .seconds(10))
            guard (200..<300).contains(answer.status) else { throw OTLPError(message: "answered \(answer.status)") }
            warned = false
        } catch {
            // One warning until an export succeeds again.
            if !warned { logger.warning("otlp: \(spans.count) spans not exported to \(endpoint): \(error)") }
            warned = true
        }
    }
}
