import Foundation

/// A value in a Firestore document: one of the types Firestore stores.
public enum FirestoreValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    /// A point in time; Firestore keeps microseconds.
    case timestamp(Date)
    case string(String)
    case bytes(Data)
    /// Another document, by its resource name
    /// (`projects/{project}/databases/{database}/documents/{path}`).
    case reference(String)
    case geoPoint(FirestoreGeoPoint)
    case array([FirestoreValue])
    case map([String: FirestoreValue])

    /// The value as a string, when it is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as an integer, when it is one.
    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The value as a number: an integer or a double.
    public var numberValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The value as a Boolean, when it is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value's fields, when it is a map.
    public var mapValue: [String: FirestoreValue]? {
        if case .map(let fields) = self { return fields }
        return nil
    }

    /// The value's elements, when it is an array.
    public var arrayValue: [FirestoreValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The field at a dotted path (`"address.city"`) below a map; `nil` when any part is missing.
    public subscript(fieldPath path: String) -> FirestoreValue? {
        var value: FirestoreValue? = self
        for name in path.split(separator: ".", omittingEmptySubsequences: false) {
            value = value?.mapValue?[String(name)]
        }
        return value
    }
}

extension FirestoreValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: FirestoreValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, FirestoreValue)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
