import Foundation

extension CloudEvent {
    /// The media type of an event in the JSON format (structured mode).
    public static let jsonFormatMediaType = "application/cloudevents+json"
    /// The media type of a batch of events in the JSON format.
    public static let jsonBatchMediaType = "application/cloudevents-batch+json"

    /// Reads an event in the CloudEvents JSON format.
    ///
    /// JSON `data` keeps its exact bytes; a string `data` with a non-JSON content type becomes
    /// its UTF-8 bytes; `data_base64` is decoded.
    /// - Throws: ``CloudEventError`` naming what is wrong: malformed JSON, a missing or
    ///   mistyped attribute, an unsupported `specversion`, or a bad `time`.
    public init(jsonFormat data: Data) throws(CloudEventError) {
        var scanner = JSONScanner(data.byteArray)
        self = try CloudEvent.readObject(&scanner)
        scanner.skipWhitespace()
        guard scanner.atEnd else { throw scanner.error("unexpected content after the event") }
    }

    /// Reads a batch (a JSON array of events in the JSON format).
    ///
    /// - Throws: ``CloudEventError`` for the first malformed event.
    public static func decodeBatch(jsonFormat data: Data) throws(CloudEventError) -> [CloudEvent] {
        var scanner = JSONScanner(data.byteArray)
        try scanner.expect(UInt8(ascii: "["))
        var events: [CloudEvent] = []
        if !scanner.consume(UInt8(ascii: "]")) {
            repeat {
                events.append(try readObject(&scanner))
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "]"))
        }
        scanner.skipWhitespace()
        guard scanner.atEnd else { throw scanner.error("unexpected content after the batch") }
        return events
    }

    /// The event in the CloudEvents JSON format.
    ///
    /// JSON data is embedded as a JSON value, textual data as a string, anything else as
    /// `data_base64`.
    public func jsonFormat() -> Data {
        Data(jsonFormatBytes())
    }

    /// The event in the JSON format: the kept encoding, or a new one.
    func jsonFormatBytes() -> [UInt8] {
        if let kept = keptJSONFormat { return kept }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320 + (data?.count ?? 0))
        appendJSONFormat(to: &bytes)
        return bytes
    }

    /// A batch of events in the JSON format, each with extension attributes of its own (a
    /// delivery's `attempt`, say).
    package static func encodeBatch(
        jsonFormat events: [(event: CloudEvent, adding: [(name: String, value: CloudEventAttributeValue)])]
    ) -> Data {
        batch(events, data: \.event.data) { item, bytes in item.event.appendJSONFormat(to: &bytes, adding: item.adding) }
    }

    /// A batch of events in the JSON format.
    public static func encodeBatch(jsonFormat events: [CloudEvent]) -> Data {
        batch(events, data: \.data) { event, bytes in event.appendJSONFormat(to: &bytes) }
    }

    /// A JSON array of what `append` writes for each item.
    private static func batch<Item>(
        _ items: [Item], data: (Item) -> Data?, append: (Item, inout [UInt8]) -> Void
    ) -> Data {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        // Reserved once: growing the array exactly, event after event, would copy it each time.
        bytes.reserveCapacity(items.reduce(2) { $0 + 340 + (data($1)?.count ?? 0) })
        for (index, item) in items.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(item, &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        return Data(bytes)
    }

    /// Appends the event in the JSON format with more extension attributes, such as a
    /// delivery's `attempt`: written before the others into a kept encoding
    /// (``keepJSONFormat()``) when the event has no attribute of those names, so the event is
    /// not encoded again.
    package func appendJSONFormat(
        to bytes: inout [UInt8], adding members: [(name: String, value: CloudEventAttributeValue)]
    ) {
        guard let kept = keptJSONFormat, !members.contains(where: { extensions[$0.name] != nil }) else {
            var event = self
            for (name, value) in members { event.extensions[name] = value }
            event.appendJSONFormat(to: &bytes)
            return
        }
        // A kept encoding is an object: `{` and then its members.
        bytes.append(UInt8(ascii: "{"))
        for (name, value) in members {
            CloudEvent.appendMember(name, value, to: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        bytes.append(contentsOf: kept.dropFirst())
    }

    /// Appends `"name":value`, the value as its JSON string, number or boolean.
    private static func appendMember(_ name: String, _ value: CloudEventAttributeValue, to bytes: inout [UInt8]) {
        appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        switch value {
        case .string(let text): appendQuoted(text, to: &bytes)
        case .integer, .boolean: bytes.append(contentsOf: value.canonicalString.utf8)
        }
    }

    /// Appends the event in the JSON format (its kept encoding, if it has one).
    func appendJSONFormat(to bytes: inout [UInt8]) {
        if let kept = keptJSONFormat {
            bytes.append(contentsOf: kept)
            return
        }
        bytes.append(contentsOf: #"{"specversion":"1.0""#.utf8)
        func member(_ name: String, _ value: String?) {
            guard let value else { return }
            bytes.append(UInt8(ascii: ","))
            CloudEvent.appendQuoted(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            CloudEvent.appendQuoted(value, to: &bytes)
        }
        member("id", id)
        member("source", source)
        member("type", type)
        member("time", time.map(RFC3339Timestamp.string(from:)))
        member("subject", subject)
        member("datacontenttype", dataContentType)
        member("dataschema", dataSchema)
        for (name, value) in extensions.sorted(by: { $0.key < $1.key }) {
            bytes.append(UInt8(ascii: ","))
            CloudEvent.appendMember(name, value, to: &bytes)
        }
        if let data {
            if hasJSONData, CloudEvent.isJSON(data) {
                bytes.append(contentsOf: #","data":"#.utf8)
                bytes.append(contentsOf: data)
            } else if isTextual, let text = String(data: data, encoding: .utf8) {
                bytes.append(contentsOf: #","data":"#.utf8)
                CloudEvent.appendQuoted(text, to: &bytes)
            } else {
                bytes.append(contentsOf: ",\"data_base64\":\"\(data.base64EncodedString())\"".utf8)
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private var isTextual: Bool {
        guard let dataContentType else { return false }
        let type = dataContentType.lowercased()
        return type.hasPrefix("text/") || type.contains("xml")
    }

    static func isJSON(_ data: Data) -> Bool {
        var scanner = JSONScanner(data.byteArray)
        guard (try? scanner.skipValue()) != nil else { return false }
        scanner.skipWhitespace()
        return scanner.atEnd
    }

    /// Appends the string as a JSON string literal. Only `"`, `\` and control characters are
    /// escaped, so the text between them is appended as it is, in runs of UTF-8 (a string with
    /// nothing to escape in one append); a run ends only before an ASCII byte, so each is valid.
    package static func appendQuoted(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var run = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "\n"): output.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): output.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): output.append(UInt8(ascii: "t"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    output.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                        hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                }
                run = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func readObject(_ scanner: inout JSONScanner) throws(CloudEventError) -> CloudEvent {
        try scanner.expect(UInt8(ascii: "{"))
        var attributes: [String: JSONScanner.Scalar] = [:]
        // Room for the context attributes and a Firebase event's extensions, grown once at most.
        attributes.reserveCapacity(16)
        var dataRange: Range<Int>?
        var dataBase64: String?
        if !scanner.consume(UInt8(ascii: "}")) {
            repeat {
                let name = try scanner.readString()
                try scanner.expect(UInt8(ascii: ":"))
                guard attributes[name] == nil, name != "data" || dataRange == nil else {
                    throw CloudEventError(.invalidJSON, "member '\(name)' appears twice", attribute: name)
                }
                switch name {
                case "data":
                    dataRange = try scanner.skipValue()
                case "data_base64":
                    switch try scanner.readScalar() {
                    case .string(let text): dataBase64 = text
                    case .null: break
                    default:
                        throw CloudEventError(.invalidAttribute, "'data_base64' must be a string", attribute: name)
                    }
                default:
                    scanner.skipWhitespace()
                    guard scanner.peek != UInt8(ascii: "{"), scanner.peek != UInt8(ascii: "[") else {
                        throw CloudEventError(
                            .invalidAttribute,
                            "attribute '\(name)' must be a string, integer or boolean",
                            attribute: name
                        )
                    }
                    attributes[name] = try scanner.readScalar()
                }
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "}"))
        }
        var reader = AttributeReader(attributes: attributes)
        var event = try reader.event()
        if dataRange != nil, dataBase64 != nil {
            throw CloudEventError(.invalidData, "an event has either 'data' or 'data_base64', not both")
        }
        if let dataBase64 {
            guard let bytes = Data(base64Encoded: dataBase64) else {
                throw CloudEventError(.invalidData, "'data_base64' is not valid base64", attribute: "data_base64")
            }
            event.data = bytes
        } else if let dataRange {
            // The value is valid JSON (skipValue checked it): its first byte tells null, a string
            // or anything else, without reading it again.
            switch scanner.bytes[dataRange.lowerBound] {
            case UInt8(ascii: "n"): break
            case UInt8(ascii: "\"") where !event.hasJSONData:
                var inner = JSONScanner(Array(scanner.bytes[dataRange]))
                event.data = Data(try inner.readString().utf8)
            default: event.data = Data(scanner.bytes[dataRange])
            }
        }
        return event
    }
}

/// Turns the scalar members of a JSON-format event into a ``CloudEvent``.
private struct AttributeReader {
    var attributes: [String: JSONScanner.Scalar]

    mutating func event() throws(CloudEventError) -> CloudEvent {
        guard let specVersion = try string("specversion") else {
            throw CloudEventError(
                .missingAttribute, "required attribute 'specversion' is missing", attribute: "specversion"
            )
        }
        try CloudEvent.checkSpecVersion(specVersion)
        let id = try required("id")
        let source = try required("source")
        let type = try required("type")
        var time: Date?
        if let text = try string("time") { time = try CloudEvent.time(text, label: "time") }
        let subject = try string("subject")
        let dataContentType = try string("datacontenttype")
        let dataSchema = try string("dataschema")
        // What is left are extensions, sized for at once: stored one by one into an event, its
        // dictionary would grow (and be rehashed) several times for a database event's six.
        var extensions: [String: CloudEventAttributeValue] = [:]
        extensions.reserveCapacity(attributes.count)
        for (name, value) in attributes {
            try CloudEvent.validateExtensionName(name)
            switch value {
            case .string(let text): extensions[name] = .string(text)
            case .bool(let flag): extensions[name] = .boolean(flag)
            case .null: break
            case .number(let text):
                guard let integer = Int(text) else {
                    throw CloudEventError(
                        .invalidAttribute,
                        "extension '\(name)' must be an integer, not \(text)",
                        attribute: name
                    )
                }
                extensions[name] = .integer(integer)
            }
        }
        return CloudEvent(
            id: id, source: source, type: type, time: time, subject: subject, dataContentType: dataContentType,
            dataSchema: dataSchema, extensions: extensions)
    }

    private mutating func string(_ name: String) throws(CloudEventError) -> String? {
        guard let value = attributes.removeValue(forKey: name) else { return nil }
        switch value {
        case .string(let text): return text
        case .null: return nil
        default: throw CloudEventError(.invalidAttribute, "attribute '\(name)' must be a string", attribute: name)
        }
    }

    private mutating func required(_ name: String) throws(CloudEventError) -> String {
        guard let value = try string(name), !value.isEmpty else {
            throw CloudEventError(.missingAttribute, "required attribute '\(name)' is missing", attribute: name)
        }
        return value
    }
}
