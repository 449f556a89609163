import Foundation
import Synchronization

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
        // Read as bytes, once: every request and event that carries one is read.
        var bytes = Array(text.utf8)[...]
        while bytes.first == 0x20 || bytes.first == 0x09 { bytes = bytes.dropFirst() }
        while bytes.last == 0x20 || bytes.last == 0x09 { bytes = bytes.dropLast() }
        let start = bytes.startIndex
        // `vv-` 32 `-` 16 `-ff`, then for a later version `-...` or nothing.
        guard bytes.count >= 55, bytes[start + 2] == 0x2d, bytes[start + 35] == 0x2d, bytes[start + 52] == 0x2d,
            bytes[start..<start + 2].allSatisfy(Self.isLowercaseHex), bytes[start + 36..<start + 52].allSatisfy(Self.isLowercaseHex),
            bytes[start + 3..<start + 35].allSatisfy(Self.isLowercaseHex), bytes[start + 53..<start + 55].allSatisfy(Self.isLowercaseHex)
        else { return nil }
        let version = bytes[start..<start + 2]
        guard !version.elementsEqual("ff".utf8),
            bytes.count == 55 || (!version.elementsEqual("00".utf8) && bytes[start + 55] == 0x2d),
            bytes[start + 3..<start + 35].contains(where: { $0 != 0x30 }),
            bytes[start + 36..<start + 52].contains(where: { $0 != 0x30 }),
            let flags = UInt8(String(decoding: bytes[start + 53..<start + 55], as: UTF8.self), radix: 16)
        else { return nil }
        self.init(traceID: String(decoding: bytes[start + 3..<start + 35], as: UTF8.self),
            spanID: String(decoding: bytes[start + 36..<start + 52], as: UTF8.self), sampled: flags & 1 == 1)
    }

    private static func isLowercaseHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
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
        TraceParent(traceID: newSpanID() + hex(IDGenerator.next()), spanID: newSpanID(), sampled: sampled)
    }

    /// A new span of this trace (a child of this one), with a random id.
    public func child() -> TraceParent {
        TraceParent(traceID: traceID, spanID: Self.newSpanID(), sampled: sampled)
    }

    /// A random span id.
    public static func newSpanID() -> String {
        var id: UInt64 = 0
        repeat { id = IDGenerator.next() } while id == 0
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

/// Random ids without a system call each: SplitMix64, seeded once from the system's generator.
/// (The system generator asks the kernel for every number, and every span needs one.)
private enum IDGenerator {
    private static let state = Mutex(UInt64.random(in: .min ... .max))

    static func next() -> UInt64 {
        var z = state.withLock { state in
            state &+= 0x9e37_79b9_7f4a_7c15
            return state
        }
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
