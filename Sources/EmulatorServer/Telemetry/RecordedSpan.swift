import CloudFunctions
import Foundation

/// A finished span as the emulator keeps it: its own (a request it served, a delivery attempt)
/// or one a worker exported to it over OTLP (an invocation, an Admin call).
public struct RecordedSpan: Sendable, Hashable, Codable {
    /// What the span stands for, as OpenTelemetry names its kinds.
    public enum Kind: String, Sendable, Codable {
        case `internal`, server, client, producer, consumer
    }

    /// The trace's id (32 lowercase hex digits).
    public var traceId: String
    /// The span's id (16 lowercase hex digits).
    public var spanId: String
    /// Its parent's id; `nil` for a trace's first span.
    public var parentSpanId: String?
    public var name: String
    public var kind: Kind
    /// The process that made it: `emulator`, or the worker's service name (its function).
    public var service: String
    /// When it started and ended, in nanoseconds since 1970.
    public var startTimeUnixNano: UInt64
    public var endTimeUnixNano: UInt64
    public var attributes: [String: JSONValue]
    /// Set when the operation failed, with what went wrong.
    public var error: String?

    public init(
        traceId: String, spanId: String, parentSpanId: String?, name: String, kind: Kind, service: String,
        startTimeUnixNano: UInt64, endTimeUnixNano: UInt64, attributes: [String: JSONValue] = [:], error: String? = nil
    ) {
        self.traceId = traceId
        self.spanId = spanId
        self.parentSpanId = parentSpanId
        self.name = name
        self.kind = kind
        self.service = service
        self.startTimeUnixNano = startTimeUnixNano
        self.endTimeUnixNano = endTimeUnixNano
        self.attributes = attributes
        self.error = error
    }

    /// About how many bytes the span takes in memory.
    var approximateSize: Int {
        attributes.reduce(200 + name.utf8.count + (error?.utf8.count ?? 0)) { total, attribute in
            total + 40 + attribute.key.utf8.count + (attribute.value.stringValue?.utf8.count ?? 8)
        }
    }

    /// Nanoseconds since 1970 of a date.
    static func nanoseconds(_ date: Date) -> UInt64 {
        UInt64(max(0, date.timeIntervalSince1970 * 1_000_000_000))
    }
}
