/// Why an event could not be read or written.
///
/// `code` says what kind of problem it is; `message` says, for a person, exactly what is
/// wrong; `attribute` names the attribute at fault when there is one.
public struct CloudEventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// A required attribute is absent or empty.
        public static let missingAttribute = Code(name: "missingAttribute")
        /// `specversion` is not `1.0`.
        public static let unsupportedSpecVersion = Code(name: "unsupportedSpecVersion")
        /// `time` is not an RFC 3339 timestamp.
        public static let invalidTime = Code(name: "invalidTime")
        /// An attribute has the wrong type or a malformed name or value.
        public static let invalidAttribute = Code(name: "invalidAttribute")
        /// The envelope is not well-formed JSON, or not a JSON object.
        public static let invalidJSON = Code(name: "invalidJSON")
        /// The data does not match its content type (e.g. non-JSON bytes for JSON content).
        public static let invalidData = Code(name: "invalidData")
        /// The HTTP message is neither a binary-mode nor a structured-mode CloudEvent.
        public static let unsupportedContentType = Code(name: "unsupportedContentType")

        public var description: String { name }
    }

    /// The kind of problem.
    public var code: Code
    /// What is wrong, in words.
    public var message: String
    /// The attribute at fault, if any.
    public var attribute: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, attribute: String? = nil) {
        self.code = code
        self.message = message
        self.attribute = attribute
    }

    public var description: String { "\(code): \(message)" }
}
