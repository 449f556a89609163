import CloudEvents
import Foundation
import Testing

@Suite("W3C traceparent and Cloud Trace's header")
struct TraceParentTests {
    static let sample = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    @Test("reads a traceparent and writes it back the same")
    func roundTrip() throws {
        let parent = try #require(TraceParent(Self.sample))
        #expect(parent.traceID == "0af7651916cd43dd8448eb211c80319c")
        #expect(parent.spanID == "b7ad6b7169203331")
        #expect(parent.sampled)
        #expect(parent.description == Self.sample)
        #expect(TraceParent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")?.sampled == false)
    }

    @Test("refuses what the specification refuses", arguments: [
        "", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331", "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
        "00-00000000000000000000000000000000-b7ad6b7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
        "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
        "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333g-01",
    ])
    func refuses(_ text: String) {
        #expect(TraceParent(text) == nil)
    }

    @Test("a later version is read for its first four fields")
    func laterVersion() {
        #expect(TraceParent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-comes-next")?.spanID == "b7ad6b7169203331")
    }

    @Test("Cloud Trace's X-Cloud-Trace-Context: a decimal span id, o=1 for sampled")
    func cloudTrace() throws {
        let parent = try #require(TraceParent(cloudTraceContext: "105445AA7843BC8BF206B12000100000/12345;o=1"))
        #expect(parent.traceID == "105445aa7843bc8bf206b12000100000")
        #expect(parent.spanID == "0000000000003039")
        #expect(parent.sampled)
        #expect(TraceParent(cloudTraceContext: "105445aa7843bc8bf206b12000100000/1")?.sampled == false)
        #expect(TraceParent(cloudTraceContext: "105445aa7843bc8bf206b12000100000/0;o=1") == nil)
        #expect(TraceParent(cloudTraceContext: "not-a-trace/1;o=1") == nil)
    }

    @Test("a new trace has well-formed random ids; a child keeps the trace and gets a span of its own")
    func newTraces() throws {
        let first = TraceParent.newTrace()
        #expect(TraceParent(first.description) == first)
        #expect(first != TraceParent.newTrace())
        let child = first.child()
        #expect(child.traceID == first.traceID && child.spanID != first.spanID && child.sampled)
    }

    @Test("the event's traceparent extension; a new value drops the old tracestate")
    func eventExtension() throws {
        var event = CloudEvent(id: "1", source: "/s", type: "t", extensions: ["traceparent": .string(Self.sample), "tracestate": "k=v"])
        #expect(event.traceParent?.spanID == "b7ad6b7169203331")
        event.traceParent = try #require(TraceParent(Self.sample))
        #expect(event.extensions["tracestate"] == "k=v")
        event.traceParent = TraceParent.newTrace()
        #expect(event.extensions["tracestate"] == nil)
        event.traceParent = nil
        #expect(event.extensions.isEmpty)
    }
}
