import CloudFunctions
import Foundation

/// An OTLP/HTTP trace export in the JSON encoding (`ExportTraceServiceRequest`): what workers
/// send to the emulator's receiver, and what ``OTLPExporter`` sends on.
///
/// Read leniently, as collectors read it: ids in hexadecimal (the OTLP specification) or in
/// base64 (the plain protobuf JSON mapping, which swift-otel writes); 64-bit integers as strings
/// or numbers; enums as numbers or names. Written as the specification says: hexadecimal ids,
/// integers as strings.
struct OTLPTraceData: Codable {
    var resourceSpans: [ResourceSpans]

    struct ResourceSpans: Codable {
        var resource: Resource?
        var scopeSpans: [ScopeSpans]?
    }

    struct Resource: Codable {
        var attributes: [KeyValue]?
    }

    struct ScopeSpans: Codable {
        var scope: Scope?
        var spans: [Span]?
    }

    struct Scope: Codable {
        var name: String?
    }

    struct Span: Codable {
        var traceId: String
        var spanId: String
        var parentSpanId: String?
        var name: String
        var kind: FlexibleEnum?
        var startTimeUnixNano: FlexibleInteger
        var endTimeUnixNano: FlexibleInteger
        var attributes: [KeyValue]?
        var status: Status?
    }

    struct Status: Codable {
        var code: FlexibleEnum?
        var message: String?
    }

    struct KeyValue: Codable {
        var key: String
        var value: AnyValue
    }

    struct AnyValue: Codable {
        var stringValue: String?
        var boolValue: Bool?
        var intValue: FlexibleInteger?
        var doubleValue: Double?
    }

    /// A 64-bit integer, written as a string or a number.
    struct FlexibleInteger: Codable {
        var value: Int64

        init(_ value: Int64) { self.value = value }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                value = number
            } else if let number = Int64(try container.decode(String.self)) {
                value = number
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a 64-bit integer")
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(String(value))
        }
    }

    /// An enum, written as its number or its name (`SPAN_KIND_SERVER`, `STATUS_CODE_ERROR`).
    struct FlexibleEnum: Codable {
        var number: Int

        init(_ number: Int) { self.number = number }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
                self.number = number
                return
            }
            let names = ["UNSPECIFIED": 0, "INTERNAL": 1, "SERVER": 2, "CLIENT": 3, "PRODUCER": 4, "CONSUMER": 5,
                "STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2]
            let name = try container.decode(String.self).replacingOccurrences(of: "SPAN_KIND_", with: "")
            guard let number = names[name] else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown enum value \(name)")
            }
            self.number = number
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(number)
        }
    }

    /// The longest name, attribute value or status message kept, in characters; longer ones are cut.
    static let textLimit = 4096
    /// The most attributes kept of a span.
    static let attributeLimit = 128

    /// The spans of the export, with their ids in hexadecimal, and their texts and attributes
    /// cut to ``textLimit`` and ``attributeLimit``.
    ///
    /// - Throws: ``OTLPError`` for an id of the wrong size.
    func recordedSpans() throws(OTLPError) -> [RecordedSpan] {
        var spans: [RecordedSpan] = []
        for resource in resourceSpans {
            let service = resource.resource?.attributes?.first { $0.key == "service.name" }?.value.stringValue ?? "unknown"
            for scope in resource.scopeSpans ?? [] {
                for span in scope.spans ?? [] {
                    let kinds: [RecordedSpan.Kind] = [.internal, .internal, .server, .client, .producer, .consumer]
                    let parent = span.parentSpanId.flatMap { $0.isEmpty ? nil : $0 }
                    spans.append(RecordedSpan(
                        traceId: try Self.hex(span.traceId, bytes: 16), spanId: try Self.hex(span.spanId, bytes: 8),
                        parentSpanId: try parent.map { id throws(OTLPError) in try Self.hex(id, bytes: 8) },
                        name: String(span.name.prefix(Self.textLimit)), kind: kinds[min(max(span.kind?.number ?? 1, 0), 5)], service: service,
                        startTimeUnixNano: UInt64(max(0, span.startTimeUnixNano.value)),
                        endTimeUnixNano: UInt64(max(0, span.endTimeUnixNano.value)),
                        attributes: Dictionary((span.attributes ?? []).prefix(Self.attributeLimit).map {
                            (String($0.key.prefix(Self.textLimit)), $0.value.json)
                        }) { _, last in last },
                        error: span.status?.code?.number == 2 ? String((span.status?.message ?? "error").prefix(Self.textLimit)) : nil))
                }
            }
        }
        return spans
    }

    /// An export of spans, grouped by the service that made them.
    init(_ spans: [RecordedSpan]) {
        let kinds: [RecordedSpan.Kind: Int] = [.internal: 1, .server: 2, .client: 3, .producer: 4, .consumer: 5]
        resourceSpans = Dictionary(grouping: spans, by: \.service).sorted { $0.key < $1.key }.map { service, spans in
            ResourceSpans(
                resource: Resource(attributes: [KeyValue(key: "service.name", value: AnyValue(stringValue: service))]),
                scopeSpans: [ScopeSpans(scope: Scope(name: "swift-cloud-functions"), spans: spans.map { span in
                    Span(traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId, name: span.name,
                        kind: FlexibleEnum(kinds[span.kind] ?? 1),
                        startTimeUnixNano: FlexibleInteger(Int64(clamping: span.startTimeUnixNano)),
                        endTimeUnixNano: FlexibleInteger(Int64(clamping: span.endTimeUnixNano)),
                        attributes: span.attributes.sorted { $0.key < $1.key }.map { KeyValue(key: $0.key, value: AnyValue($0.value)) },
                        status: span.error.map { Status(code: FlexibleEnum(2), message: $0) })
                })])
        }
    }

    /// An id in lowercase hexadecimal, from hexadecimal or base64; all zeros is no id.
    private static func hex(_ id: String, bytes: Int) throws(OTLPError) -> String {
        let hex: String
        if id.utf8.count == bytes * 2, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }) {
            hex = id.lowercased()
        } else if let data = Data(base64Encoded: id), data.count == bytes {
            hex = data.map { String(format: "%02x", $0) }.joined()
        } else {
            throw OTLPError(message: "'\(id.prefix(64))' is not a \(bytes)-byte id in hexadecimal or base64")
        }
        guard hex.contains(where: { $0 != "0" }) else { throw OTLPError(message: "an id of all zeros is invalid") }
        return hex
    }
}

extension OTLPTraceData.AnyValue {
    init(_ value: JSONValue) {
        switch value {
        case .string(let text): stringValue = text
        case .bool(let flag): boolValue = flag
        case .number(let number):
            if number == number.rounded(), abs(number) < 9e15 { intValue = .init(Int64(number)) } else { doubleValue = number }
        default: stringValue = value.serialized()
        }
    }

    var json: JSONValue {
        if let stringValue { return .string(String(stringValue.prefix(OTLPTraceData.textLimit))) }
        if let boolValue { return .bool(boolValue) }
        if let intValue { return .number(Double(intValue.value)) }
        if let doubleValue { return .number(doubleValue) }
        return .null
    }
}

/// An OTLP export the receiver cannot read.
struct OTLPError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
