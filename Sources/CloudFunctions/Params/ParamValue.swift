import Foundation

/// A type a ``Param`` can hold: `String`, `Int`, `Bool`, `Double` or `[String]`.
///
/// Each has a manifest type name and an environment form, the text a deploy puts in the
/// function's environment variable (a list is a JSON array of strings, as firebase-functions
/// reads it).
public protocol ParamValue: Sendable, Hashable {
    /// The type's name in the manifest's `params`.
    static var paramType: ParamSpec.ValueType { get }
    /// Reads the environment form; `nil` when the text is not a value of this type.
    init?(environmentValue: String)
    /// The value as a manifest `default` (a JSON string, number, boolean or array).
    var manifestValue: JSONValue { get }
}

extension String: ParamValue {
    public static var paramType: ParamSpec.ValueType { .string }
    public init?(environmentValue: String) { self = environmentValue }
    public var manifestValue: JSONValue { .string(self) }
}

extension Int: ParamValue {
    public static var paramType: ParamSpec.ValueType { .int }
    public init?(environmentValue: String) { self.init(environmentValue.trimmingCharacters(in: .whitespaces)) }
    public var manifestValue: JSONValue { .number(Double(self)) }
}

extension Double: ParamValue {
    public static var paramType: ParamSpec.ValueType { .float }
    public init?(environmentValue: String) {
        guard let value = Double(environmentValue.trimmingCharacters(in: .whitespaces)), value.isFinite else { return nil }
        self = value
    }
    public var manifestValue: JSONValue { .number(self) }
}

extension Bool: ParamValue {
    public static var paramType: ParamSpec.ValueType { .boolean }
    public init?(environmentValue: String) {
        switch environmentValue {
        case "true": self = true
        case "false": self = false
        default: return nil
        }
    }
    public var manifestValue: JSONValue { .bool(self) }
}

extension Array: ParamValue where Element == String {
    public static var paramType: ParamSpec.ValueType { .list }
    public init?(environmentValue: String) {
        guard let items = (try? JSONValue(parsing: Data(environmentValue.utf8)))?.arrayValue else { return nil }
        let strings = items.compactMap(\.stringValue)
        guard strings.count == items.count else { return nil }
        self = strings
    }
    public var manifestValue: JSONValue { .array(map(JSONValue.string)) }
}
