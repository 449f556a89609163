import CloudEvents
import CloudFunctions
@testable import EmulatorServer
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The emulator's own spans, the OTLP receiver its workers export to, and `/metrics`.
@Suite("Traces and metrics routes")
struct TraceRoutesTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let template = #"{"parameters": {"a": {"defaultValue": {"value": "1"}}}}"#

    static func publish(_ client: some TestClientProtocol, traceparent: String? = nil) async throws {
        var headers = owner
        headers[.ifMatch] = "*"
        if let traceparent { headers[HTTPField.Name("traceparent")!] = traceparent }
        try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put, headers: headers,
            body: ByteBuffer(string: template)) { #expect($0.status == .ok) }
    }

    @Test("a write is a server span, and the event it emits carries that span as its traceparent")
    func writeSpan() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await Self.publish(client)
            // Reads without a trace and the emulator's own routes make no span.
            try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .get, headers: Self.owner) { _ in }
            try await client.execute(uri: "/emulator/v1/projects/demo/events", method: .get, headers: Self.owner) { _ in }
        }
        let ids = server.traces.recentTraceIds(limit: 10)
        #expect(ids.count == 1)
        let spans = server.traces.trace(try #require(ids.first))
        let span = try #require(spans.first)
        #expect(spans.count == 1)
        #expect(span.name == "PUT /v1/projects/demo/remoteConfig" && span.kind == .server && span.parentSpanId == nil)
        #expect(span.attributes["http.response.status_code"] == 200)
        let event = try #require(try server.emulator.store.pendingEvents().first?.event)
        #expect(event.traceParent?.traceID == span.traceId)
        #expect(event.traceParent?.spanID == span.spanId)
    }

    @Test("a request with a traceparent continues the caller's trace")
    func continuesTrace() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        try await Application(router: server.router()).test(.router) { client in
            try await Self.publish(client, traceparent: caller)
        }
        let span = try #require(server.traces.trace("0af7651916cd43dd8448eb211c80319c").first)
        #expect(span.parentSpanId == "b7ad6b7169203331")
        #expect(try server.emulator.store.pendingEvents().first?.event.traceParent?.spanID == span.spanId)
    }

    @Test("the receiver reads OTLP JSON with base64 ids (swift-otel's) or hex ids (the specification's)")
    func receiver() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        // Trace 0af7651916cd43dd8448eb211c80319c, span b7ad6b7169203331, in base64.
        let export = #"""
            {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"tally"}}]},
             "scopeSpans":[{"scope":{"name":"swift-otel"},"spans":[
              {"traceId":"CvdlGRbNQ92ESOshHIAxnA==","spanId":"t61rcWkgMzE=","name":"tally","kind":5,
               "startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000500000000",
               "attributes":[{"key":"functions.attempt","value":{"intValue":"2"}}],"status":{"code":2,"message":"boom"}},
              {"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"00f067aa0ba902b7","parentSpanId":"b7ad6b7169203331",
               "name":"GET","kind":"SPAN_KIND_CLIENT","startTimeUnixNano":1700000000100000000,"endTimeUnixNano":1700000000200000000}]}]}]}
            """#
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/emulator/v1/otlp/v1/traces", method: .post,
                headers: [.contentType: "application/json"], body: ByteBuffer(string: export)) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "{}")
            }
            try await client.execute(uri: "/emulator/v1/otlp/v1/traces", method: .post,
                headers: [.contentType: "application/x-protobuf"], body: ByteBuffer(string: "\u{0a}")) { response in
                #expect(response.status == .unsupportedMediaType)
                #expect(String(buffer: response.body).contains("http/json"))
            }
            try await client.execute(uri: "/emulator/v1/otlp/v1/traces", method: .post,
                headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"short","spanId":"x","name":"n","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}"#)) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/traces/0af7651916cd43dd8448eb211c80319c", method: .get,
                headers: Self.owner) { response in
                #expect(response.status == .ok)
                let body = try JSONValue(parsing: Data(String(buffer: response.body).utf8))
                let spans = body["spans"]?.arrayValue ?? []
                #expect(spans.count == 2)
                #expect(spans.first?["spanId"] == "b7ad6b7169203331")
                #expect(spans.first?["kind"] == "consumer")
                #expect(spans.first?["service"] == "tally")
                #expect(spans.first?["error"] == "boom")
                #expect(spans.first?["attributes"]?["functions.attempt"] == 2)
                #expect(spans.last?["kind"] == "client")
                #expect(spans.last?["parentSpanId"] == "b7ad6b7169203331")
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/traces", method: .get, headers: Self.owner) { response in
                let body = try JSONValue(parsing: Data(String(buffer: response.body).utf8))
                let first = body["traces"]?.arrayValue?.first
                #expect(first?["name"] == "tally" && first?["spans"] == 2 && first?["errors"] == 1)
                #expect(first?["durationMs"] == 500)
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/traces/ffffffffffffffffffffffffffffffff", method: .get,
                headers: Self.owner) { #expect($0.status == .notFound) }
        }
    }

    @Test("beyond the rate a trace is not recorded, and its events carry it unsampled; a caller's unsampled trace is kept so")
    func sampling() async throws {
        var configuration = EmulatorServer.Configuration()
        configuration.tracesPerSecond = 0
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil), configuration: configuration)
        try await Application(router: server.router()).test(.router) { client in
            try await Self.publish(client)
            try await Self.publish(client, traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")
        }
        #expect(server.traces.recentTraceIds(limit: 10).isEmpty)
        let events = try server.emulator.store.pendingEvents().map(\.event)
        #expect(events.count == 2)
        #expect(events.allSatisfy { $0.traceParent?.sampled == false })
        #expect(events.last?.traceParent?.traceID == "0af7651916cd43dd8448eb211c80319c")
    }

    @Test("an event committed outside a request gets one trace for all its attempts, with one span for its creation")
    func eventWithoutRequest() throws {
        let tracer = EmulatorTracer(store: TraceStore())
        let event = CloudEvent(id: "e1", source: "//firestore.googleapis.com/projects/demo", type: "t")
        let first = tracer.parent(of: event)
        #expect(tracer.parent(of: event) == first)
        #expect(tracer.parent(of: CloudEvent(id: "e2", source: event.source, type: "t")).traceID != first.traceID)
        let spans = tracer.store.trace(first.traceID)
        #expect(spans.map(\.spanId) == [first.spanID])
        #expect(spans.first?.name == "event t" && spans.first?.parentSpanId == nil)
    }

    @Test("a client's 4xx is not a failed span; a 5xx or a thrown error is")
    func clientErrors() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            var headers = Self.owner
            headers[.ifMatch] = "*"
            try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put, headers: headers,
                body: ByteBuffer(string: "not json")) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/no/such/route", method: .post, headers: Self.owner) { #expect($0.status == .notFound) }
        }
        let spans = server.traces.recentTraceIds(limit: 10).flatMap { server.traces.trace($0) }
        #expect(spans.count == 2)
        #expect(spans.allSatisfy { $0.error == nil })
        #expect(Set(spans.compactMap { $0.attributes["http.response.status_code"]?.numberValue }) == [400, 404])
    }

    @Test("the receiver refuses ids of all zeros or not in ASCII hexadecimal", arguments: [
        "00000000000000000000000000000000", "０af7651916cd43dd8448eb211c80319", "AAAAAAAAAAAAAAAAAAAAAA==",
    ])
    func badIds(_ traceId: String) async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let export = #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"\#(traceId)","spanId":"b7ad6b7169203331","name":"n","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}"#
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/emulator/v1/otlp/v1/traces", method: .post,
                headers: [.contentType: "application/json"], body: ByteBuffer(string: export)) { #expect($0.status == .badRequest) }
        }
        #expect(server.traces.recentTraceIds(limit: 10).isEmpty)
    }

    @Test("the store keeps about its byte budget, the oldest traces going first")
    func byteBudget() {
        let store = TraceStore(byteLimit: 10_000)
        for index in 0..<20 {
            store.add([RecordedSpan(traceId: String(format: "%032x", index + 1), spanId: "00000000000000aa", parentSpanId: nil,
                name: String(repeating: "n", count: 1_000), kind: .internal, service: "emulator", startTimeUnixNano: 1,
                endTimeUnixNano: 2)])
        }
        let kept = store.recentTraceIds(limit: 100)
        #expect(kept.count < 10 && kept.count > 5)
        #expect(kept.first == String(format: "%032x", 20))
    }

    @Test("the store keeps the newest traces up to its limit")
    func storeLimit() {
        let store = TraceStore(traceLimit: 3, spanLimit: 2)
        for index in 0..<5 {
            let trace = String(format: "%032x", index + 1)
            store.add((0..<3).map { span in
                RecordedSpan(traceId: trace, spanId: String(format: "%016x", span + 1), parentSpanId: nil, name: "s",
                    kind: .internal, service: "emulator", startTimeUnixNano: UInt64(span), endTimeUnixNano: UInt64(span + 1))
            })
        }
        #expect(store.recentTraceIds(limit: 10) == [5, 4, 3].map { String(format: "%032x", $0) })
        #expect(store.trace(String(format: "%032x", 1)).isEmpty)
        #expect(store.trace(String(format: "%032x", 5)).count == 2)
    }

    @Test("/metrics is the Prometheus text format, with the gauges read when scraped")
    func metrics() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await Self.publish(client)
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
                let lines = String(buffer: response.body).split(separator: "\n")
                #expect(lines.contains("# TYPE functions_outbox_pending_events gauge"))
                #expect(lines.contains("functions_outbox_pending_events 1.0"))
            }
        }
    }
}
