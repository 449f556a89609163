import Foundation

extension CloudEvent {
    /// Reads an event from an HTTP message in either content mode.
    ///
    /// A `Content-Type` of `application/cloudevents+json` means structured mode (the whole
    /// event in the body); otherwise the message must be in binary mode, with the attributes
    /// in `ce-` headers (percent-decoded), `Content-Type` as `datacontenttype` and the body as
    /// the data.
    /// - Throws: ``CloudEventError``: a missing required `ce-` header, a batch sent to a
    ///   single-event endpoint, a bad `time`, or a body that is not JSON when its content type
    ///   says JSON.
    public init(httpMessage message: CloudEventHTTPMessage) throws(CloudEventError) {
        let contentType = message[header: "content-type"]
        let essence = contentType.map(CloudEvent.mediaTypeEssence) ?? ""
        if essence == CloudEvent.jsonFormatMediaType {
            self = try CloudEvent(jsonFormat: message.body)
            return
        }
        if essence == CloudEvent.jsonBatchMediaType {
            throw CloudEventError(
                .unsupportedContentType,
                "a batch of events (\(CloudEvent.jsonBatchMediaType)) was sent where one event is expected"
            )
        }
        self = try CloudEvent.readBinary(message, contentType: contentType)
    }

    /// The event as a binary-mode HTTP message: `ce-` headers and the data as the body.
    public func binaryHTTPMessage() -> CloudEventHTTPMessage {
        var headers: [CloudEventHTTPMessage.Field] = [
            .init(name: "ce-specversion", value: CloudEvent.specVersion),
            .init(name: "ce-id", value: CloudEvent.percentEncodeHeader(id)),
            .init(name: "ce-source", value: CloudEvent.percentEncodeHeader(source)),
            .init(name: "ce-type", value: CloudEvent.percentEncodeHeader(type)),
        ]
        if let time { headers.append(.init(name: "ce-time", value: RFC3339Timestamp.string(from: time))) }
        if let subject { headers.append(.init(name: "ce-subject", value: CloudEvent.percentEncodeHeader(subject))) }
        if let dataSchema {
            headers.append(.init(name: "ce-dataschema", value: CloudEvent.percentEncodeHeader(dataSchema)))
        }
        for (name, value) in extensions.sorted(by: { $0.key < $1.key }) {
            headers.append(.init(name: "ce-" + name, value: CloudEvent.percentEncodeHeader(value.canonicalString)))
        }
        if let dataContentType {
            headers.append(.init(name: "content-type", value: dataContentType))
        } else if let data {
            // Without a datacontenttype, JSON is JSON; other bytes (from `data_base64`) are
            // labelled as bytes, which a receiver then takes as they are.
            headers.append(.init(name: "content-type", value: CloudEvent.isJSON(data) ? "application/json" : "application/octet-stream"))
        }
        return CloudEventHTTPMessage(headers: headers, body: data ?? Data())
    }

    /// The event as a structured-mode HTTP message: the JSON format in the body.
    public func structuredHTTPMessage() -> CloudEventHTTPMessage {
        CloudEventHTTPMessage(
            headers: [.init(name: "content-type", value: CloudEvent.jsonFormatMediaType + "; charset=utf-8")],
            body: jsonFormat()
        )
    }

    private static func readBinary(
        _ message: CloudEventHTTPMessage,
        contentType: String?
    ) throws(CloudEventError) -> CloudEvent {
        // The context attributes in variables and the rest in a dictionary: this runs for every
        // event a worker receives.
        var specVersion, id, source, type, time, subject, dataSchema, headerContentType: String?
        var extensions: [String: String] = [:]
        for field in message.headers where field.name.utf8.starts(with: "ce-".utf8, by: { asciiLowercased($0) == $1 }) {
            let name = String(field.name.dropFirst(3)).lowercased()
            guard let value = field.value.percentDecoded else {
                throw CloudEventError(
                    .invalidAttribute,
                    "header '\(field.name)' is not valid percent-encoded UTF-8",
                    attribute: name
                )
            }
            func store(_ slot: inout String?) throws(CloudEventError) {
                guard slot == nil else {
                    throw CloudEventError(.invalidAttribute, "header '\(field.name)' appears twice", attribute: name)
                }
                slot = value
            }
            switch name {
            case "specversion": try store(&specVersion)
            case "id": try store(&id)
            case "source": try store(&source)
            case "type": try store(&type)
            case "time": try store(&time)
            case "subject": try store(&subject)
            case "dataschema": try store(&dataSchema)
            // Binary mode carries the content type in Content-Type; Google's Firestore emulator
            // sends a `ce-datacontenttype` too, read only when Content-Type is missing.
            case "datacontenttype": try store(&headerContentType)
            default: try store(&extensions[name])
            }
        }
        guard let specVersion else {
            let reason = contentType == nil ? "" : " (content-type '\(contentType!)' is not \(jsonFormatMediaType))"
            throw CloudEventError(
                .missingAttribute,
                "not a CloudEvent: header 'ce-specversion' is missing\(reason)",
                attribute: "specversion"
            )
        }
        try checkSpecVersion(specVersion)
        func required(_ value: String?, _ name: String) throws(CloudEventError) -> String {
            guard let value, !value.isEmpty else {
                throw CloudEventError(.missingAttribute, "required header 'ce-\(name)' is missing", attribute: name)
            }
            return value
        }
        var event = CloudEvent(
            id: try required(id, "id"),
            source: try required(source, "source"),
            type: try required(type, "type"),
            time: try time.map { text throws(CloudEventError) in try CloudEvent.time(text, label: "ce-time") },
            subject: subject,
            dataContentType: contentType ?? headerContentType,
            dataSchema: dataSchema
        )
        for (name, value) in extensions {
            try validateExtensionName(name)
            event.extensions[name] = .string(value)
        }
        if !message.body.isEmpty {
            if event.hasJSONData, !isJSON(message.body) {
                throw CloudEventError(
                    .invalidData,
                    "the body is not JSON although content-type is '\(event.dataContentType ?? "application/json")'",
                    attribute: "data"
                )
            }
            event.data = message.body
        }
        return event
    }

    /// Accepts only CloudEvents 1.0.
    static func checkSpecVersion(_ specVersion: String) throws(CloudEventError) {
        guard specVersion == CloudEvent.specVersion else {
            throw CloudEventError(
                .unsupportedSpecVersion,
                "specversion '\(specVersion)' is not supported; expected '1.0'",
                attribute: "specversion"
            )
        }
    }

    /// The `time` attribute, which must be an RFC 3339 timestamp; `label` names it in the error.
    static func time(_ text: String, label: String) throws(CloudEventError) -> Date {
        guard let date = RFC3339Timestamp.date(from: text) else {
            throw CloudEventError(.invalidTime, "\(label) '\(text)' is not an RFC 3339 timestamp", attribute: "time")
        }
        return date
    }

    /// Percent-encodes what HTTP header values may not carry: space, `"`, `%`, and anything
    /// outside printable ASCII, as the CloudEvents HTTP binding requires.
    static func percentEncodeHeader(_ value: String) -> String {
        let kept = { (byte: UInt8) in byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "%") }
        // Ids, sources, types and times usually need no encoding: the value as it is.
        if value.utf8.allSatisfy(kept) { return value }
        var out = ""
        for byte in value.utf8 {
            if kept(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
