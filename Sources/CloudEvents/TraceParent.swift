import Foundation

/// A W3C Trace Context `traceparent` value, `00-{trace id}-{span id}-{flags}`: what the
/// `traceparent` HTTP header and the CloudEvents distributed-tracing extension carry.
///
/// On an event (``CloudEvent/traceParent``) it names the span that created the event, and no
/// one who forwards the event changes it; each delivery carries its own in the transport (an
/// HTTP `traceparent` header).
public struct TraceParent: Hashable, Sendable, CustomStringConvertible {
    /// The trace's id: 32 lowercase hexadecimal digits, not all zero.
    public let traceID: String
    /// The span's id: 16 lowercase hexadecimal digits, not all zero.
    public let spanID: String
    /// Whether the caller records the trace (the `sampled` flag).
    public let sampled: Bool

    /// Reads a `traceparent` value; `nil` when it is not well-formed or an id is all zeros.
    /// Versions above `00` are read for their first four fields, as the specification asks.
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].count == 2, parts[0] != "ff", parts[1].count == 32, parts[2].count == 16,
            parts[3].count == 2, parts[0] != "00" || parts.count == 4,
            parts.prefix(4).allSatisfy({ $0.allSatisfy(\.isLowercaseHexDigit) }),
            parts[1].contains(where: { $0 != "0" }), parts[2].contains(where: { $0 != "0" }),
            let flags = UInt8(parts[3], radix: 16)
        else { return nil }
        self.init(traceID: String(parts[1]), spanID: String(parts[2]), sampled: flags & 1 == 1)
    }

    /// Reads Cloud Trace's `X-Cloud-Trace-Context` header, `TRACE_ID/SPAN_ID;o=OPTIONS`, whose
    /// span id is decimal; `nil` when it is not well-formed.
    public init?(cloudTraceContext text: String) {
        let main = text.split(separator: ";", maxSplits: 1)
        let ids = main.first?.split(separator: "/", maxSplits: 1) ?? []
        guard ids.count == 2, ids[0].count == 32, ids[0].lowercased().allSatisfy(\.isLowercaseHexDigit),
            ids[0].contains(where: { $0 != "0" }),
            let span = UInt64(ids[1]), span != 0
        else { return nil }
        let options = main.count == 2 ? main[1].trimmingCharacters(in: .whitespaces) : ""
        self.init(traceID: ids[0].lowercased(), spanID: Self.hex(span), sampled: options == "o=1")
    }

    /// A span of a trace; the ids are taken as given.
    public init(traceID: String, spanID: String, sampled: Bool) {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
    }

    /// The first span of a new trace, with random ids.
    public static func newTrace(sampled: Bool = true) -> TraceParent {
        var generator = SystemRandomNumberGenerator()
        var high: UInt64 = 0
        repeat { high = generator.next() } while high == 0
        return TraceParent(traceID: hex(high) + hex(generator.next()), spanID: newSpanID(), sampled: sampled)
    }

    /// A new span of this trace (a child of this one), with a random id.
    public func child() -> TraceParent {
        TraceParent(traceID: traceID, spanID: Self.newSpanID(), sampled: sampled)
    }

    /// A random span id.
    public static func newSpanID() -> String {
        var generator = SystemRandomNumberGenerator()
        var id: UInt64 = 0
        repeat { id = generator.next() } while id == 0
        return hex(id)
    }

    /// The `traceparent` value.
    public var description: String { "00-\(traceID)-\(spanID)-0\(sampled ? 1 : 0)" }

    /// 16 lowercase hexadecimal digits.
    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension CloudEvent {
    /// The CloudEvents distributed-tracing extension (`traceparent`): the span that created the
    /// event. Setting it also drops a `tracestate` that belonged to another value.
    public var traceParent: TraceParent? {
        get {
            guard case .string(let text)? = extensions["traceparent"] else { return nil }
            return TraceParent(text)
        }
        set {
            if newValue?.description != traceParent?.description { extensions["tracestate"] = nil }
            extensions["traceparent"] = newValue.map { .string($0.description) }
        }
    }
}

extension Character {
    fileprivate var isLowercaseHexDigit: Bool {
        ("0"..."9").contains(self) || ("a"..."f").contains(self)
    }
}
