import Foundation

/// An HTTP request or response carrying an event: header fields and a body.
///
/// Independent of any HTTP library: convert to and from your server's or client's types.
/// Header names (ASCII tokens) compare without regard to the case of ASCII letters.
public struct CloudEventHTTPMessage: Sendable, Hashable {
    /// A header field.
    public struct Field: Sendable, Hashable {
        /// The field name, as written.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The header fields, in order.
    public var headers: [Field]
    /// The body.
    public var body: Data

    /// Creates a message.
    public init(headers: [Field], body: Data) {
        self.headers = headers
        self.body = body
    }

    /// Creates a message from name-value pairs.
    public init(headers: [(String, String)], body: Data) {
        self.init(headers: headers.map { Field(name: $0.0, value: $0.1) }, body: body)
    }

    /// The first value of the named field.
    public subscript(header name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }
}

extension String {
    /// Equal but for the case of ASCII letters, as header names (ASCII tokens) compare; on
    /// bytes, for it runs for every header of every event received.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8) { asciiLowercased($0) == asciiLowercased($1) }
    }
}
