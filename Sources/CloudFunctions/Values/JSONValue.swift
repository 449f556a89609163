import CloudEvents
import Foundation

/// A JSON value: what Realtime Database nodes, custom claims and event payloads are made of.
///
/// Numbers are IEEE doubles, as in JavaScript and in the Firebase wire formats, so integers
/// are exact up to 2^53. Objects are unordered; ``serialized(sortedKeys:)`` writes keys in
/// byte order when a stable form is needed.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value as a string, when it is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as a number, when it is one.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The value as a Boolean, when it is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The members of an object, when the value is one.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements of an array, when the value is one.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Whether the value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key` of an object; `nil` for other values and missing keys.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension JSONValue {
    /// Parses UTF-8 JSON text, strictly as RFC 8259 defines it: trailing commas, comments,
    /// non-finite or out-of-range numbers, invalid UTF-8 and nesting deeper than 512 levels
    /// are refused.
    ///
    /// - Throws: ``JSONSyntaxError`` when the text is not JSON.
    public init(parsing data: Data) throws(JSONSyntaxError) {
        self = try StrictJSONParser.parse(data.byteArray)
    }

    /// Parses JSON text, strictly.
    ///
    /// - Throws: ``JSONSyntaxError`` when the text is not JSON.
    public init(parsing text: String) throws(JSONSyntaxError) {
        try self.init(parsing: Data(text.utf8))
    }

    /// Encodes any `Encodable` value as a JSON value.
    public init(encoding value: some Encodable) throws {
        let data = try JSONEncoder().encode(value)
        try self.init(parsing: data)
    }

    /// Decodes the value into a `Decodable` type.
    public func decode<T: Decodable>(as type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: serializedData())
    }
}
