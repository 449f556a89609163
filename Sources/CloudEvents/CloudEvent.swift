import Foundation

/// A CloudEvents 1.0 event: the context attributes and the data they describe.
///
/// The required attributes are `specversion`, `id`, `source` and `type`; `time`, `subject`,
/// `datacontenttype` and `dataschema` are optional, and any other attribute is an extension.
/// `data` holds the payload's bytes exactly as they travel in an HTTP body.
public struct CloudEvent: Sendable, Hashable {
    /// The only CloudEvents version this module reads and writes.
    public static let specVersion = "1.0"

    /// The attributes and data, as stored.
    private struct Fields: Hashable {
        var id: String
        var source: String
        var type: String
        var time: Date?
        var subject: String?
        var dataContentType: String?
        var dataSchema: String?
        var extensions: [String: CloudEventAttributeValue]
        var data: Data?
    }

    /// The fields behind one reference: an event is copied at every hand-off (queues,
    /// deliveries, contexts), and a copy then costs one retain instead of one per field.
    private final class Storage: @unchecked Sendable {
        // Mutated only through `unique`, when no other event shares it: no access can overlap
        // another, so they go unchecked. (Checked, every read of an attribute registered and
        // removed a dynamic access: about 5 % of the bus's publishing, in its benchmark.)
        @exclusivity(unchecked) var fields: Fields
        /// The event in the JSON format, when ``CloudEvent/keepJSONFormat()`` made it: an event
        /// written to the emulator's outbox is sent to its workers in the same bytes.
        @exclusivity(unchecked) var jsonFormat: [UInt8]?

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private var storage: Storage

    /// The storage, copied first when another event shares it: what every setter writes to. A
    /// kept JSON encoding is dropped, as the event is about to change.
    private var unique: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            storage.jsonFormat = nil
            return storage
        }
    }

    /// The event in the JSON format, kept with the event (and its copies) until it changes, so
    /// that encoding it again costs nothing.
    package mutating func keepJSONFormat() -> [UInt8] {
        if let kept = storage.jsonFormat { return kept }
        let bytes = jsonFormatBytes()
        unique.jsonFormat = bytes
        return bytes
    }

    /// The kept JSON encoding, if any.
    var keptJSONFormat: [UInt8]? { storage.jsonFormat }

    /// Identifies the event; `source` + `id` is unique for each distinct event.
    public var id: String {
        get { storage.fields.id }
        set { unique.fields.id = newValue }
    }
    /// Identifies the context in which the event happened, a URI reference.
    public var source: String {
        get { storage.fields.source }
        set { unique.fields.source = newValue }
    }
    /// The kind of event, e.g. `google.firebase.database.ref.v1.written`.
    public var type: String {
        get { storage.fields.type }
        set { unique.fields.type = newValue }
    }
    /// When the occurrence happened.
    public var time: Date? {
        get { storage.fields.time }
        set { unique.fields.time = newValue }
    }
    /// The subject of the event within its source, e.g. `refs/users/abc`.
    public var subject: String? {
        get { storage.fields.subject }
        set { unique.fields.subject = newValue }
    }
    /// The media type of `data`, e.g. `application/json`.
    public var dataContentType: String? {
        get { storage.fields.dataContentType }
        set { unique.fields.dataContentType = newValue }
    }
    /// A URI identifying the schema `data` adheres to.
    public var dataSchema: String? {
        get { storage.fields.dataSchema }
        set { unique.fields.dataSchema = newValue }
    }
    /// Extension attributes by name (lower-case letters and digits).
    public var extensions: [String: CloudEventAttributeValue] {
        get { storage.fields.extensions }
        set { unique.fields.extensions = newValue }
        _modify { yield &unique.fields.extensions }
    }
    /// An extension attribute's value: what `extensions[name]` gives, without hashing `name`
    /// when the event has 8 extensions or fewer (nearly every event has fewer than four). The
    /// bus reads each event's `ref` this way to match it against path patterns.
    public func extensionValue(named name: String) -> CloudEventAttributeValue? {
        guard storage.fields.extensions.count <= 8 else { return storage.fields.extensions[name] }
        for (key, value) in storage.fields.extensions where key == name { return value }
        return nil
    }
    /// The payload, as bytes.
    public var data: Data? {
        get { storage.fields.data }
        set { unique.fields.data = newValue }
    }

    /// Creates an event from its attributes.
    public init(
        id: String,
        source: String,
        type: String,
        time: Date? = nil,
        subject: String? = nil,
        dataContentType: String? = nil,
        dataSchema: String? = nil,
        extensions: [String: CloudEventAttributeValue] = [:],
        data: Data? = nil
    ) {
        storage = Storage(Fields(
            id: id, source: source, type: type, time: time, subject: subject, dataContentType: dataContentType,
            dataSchema: dataSchema, extensions: extensions, data: data
        ))
    }

    /// A new random event id: a version 4 UUID in upper case, as `UUID().uuidString` gives.
    ///
    /// Its bits come from the system's generator (`getrandom` on Linux): Foundation's `UUID()`
    /// opens, reads and closes `/dev/urandom` on Linux for every id, which shows up when a
    /// service emits thousands of events a second.
    public static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        var (high, low) = (generator.next() as UInt64, generator.next() as UInt64)
        high = (high & ~0xF000) | 0x4000  // version 4
        low = (low & ~(0xC0 << 56)) | (0x80 << 56)  // variant 1 (RFC 4122)
        // Big-endian, the two words are the UUID's 16 bytes in order, without an array per id.
        return UUID(uuid: unsafeBitCast((high.bigEndian, low.bigEndian), to: uuid_t.self)).uuidString
    }

    public static func == (a: CloudEvent, b: CloudEvent) -> Bool {
        a.storage === b.storage || a.storage.fields == b.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.fields)
    }

    /// The names of the attributes the specification defines, which extensions may not reuse.
    public static let contextAttributeNames: Set<String> = [
        "specversion", "id", "source", "type", "time", "subject", "datacontenttype", "dataschema",
        "data", "data_base64",
    ]

    /// Any attribute by its CloudEvents name, in its canonical string form; `nil` when absent.
    public subscript(attribute name: String) -> String? {
        switch name {
        case "specversion": CloudEvent.specVersion
        case "id": id
        case "source": source
        case "type": type
        case "time": time.map(RFC3339Timestamp.string(from:))
        case "subject": subject
        case "datacontenttype": dataContentType
        case "dataschema": dataSchema
        default: extensionValue(named: name)?.canonicalString
        }
    }

    /// Whether `data` is JSON according to `datacontenttype` (absent means JSON).
    public var hasJSONData: Bool {
        guard let dataContentType else { return true }
        return CloudEvent.isJSONMediaType(dataContentType)
    }

    /// Checks the attributes against the specification.
    ///
    /// - Throws: ``CloudEventError`` naming the first attribute that is missing or malformed.
    public func validate() throws(CloudEventError) {
        for (name, value) in [("id", id), ("source", source), ("type", type)] where value.isEmpty {
            throw CloudEventError(.missingAttribute, "required attribute '\(name)' is empty", attribute: name)
        }
        for name in extensions.keys {
            try CloudEvent.validateExtensionName(name)
        }
    }

    static func validateExtensionName(_ name: String) throws(CloudEventError) {
        guard !name.isEmpty,
            name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) })
        else {
            throw CloudEventError(
                .invalidAttribute,
                "attribute name '\(name)' must consist of lower-case letters and digits",
                attribute: name
            )
        }
        if contextAttributeNames.contains(name) {
            throw CloudEventError(.invalidAttribute, "'\(name)' is not an extension attribute", attribute: name)
        }
    }

    static func isJSONMediaType(_ mediaType: String) -> Bool {
        let essence = mediaTypeEssence(mediaType)
        return essence == "application/json" || essence == "text/json" || essence.hasSuffix("+json")
    }

    /// A media type without its parameters, trimmed and lowercased: `application/json` for
    /// `Application/JSON; charset=utf-8`. Compared on bytes: it runs for every event received.
    static func mediaTypeEssence(_ mediaType: String) -> String {
        let essence = essenceBytes(of: mediaType)
        guard essence.contains(where: { (0x41...0x5A).contains($0) }) else { return String(Substring(essence)) }
        return String(decoding: essence.map(asciiLowercased), as: UTF8.self)
    }

    /// Whether a media type is that of a batch (``jsonBatchMediaType``), with any parameters and
    /// in any case; compared in place, for it runs for every event received.
    package static func isBatchMediaType(_ mediaType: String) -> Bool {
        essenceBytes(of: mediaType).elementsEqual(jsonBatchMediaType.utf8) { asciiLowercased($0) == $1 }
    }

    /// The bytes of a media type without its parameters, trimmed.
    private static func essenceBytes(of mediaType: String) -> Substring.UTF8View {
        let bytes = mediaType.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        var essence = bytes[..<end].drop { $0 == 0x20 || $0 == 0x09 }
        while let last = essence.last, last == 0x20 || last == 0x09 { essence = essence.dropLast() }
        return essence
    }
}

/// A byte with ASCII upper-case letters lowered; every other byte as it is.
func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
}
