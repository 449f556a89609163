import Foundation

/// A config value, read the ways the SDKs read it.
public struct RemoteConfigValue: Sendable, Hashable {
    /// The value as text: remote values always are text on the wire.
    public let stringValue: String
    /// Where it came from.
    public let source: RemoteConfigSource

    /// Creates a value.
    public init(_ stringValue: String, source: RemoteConfigSource) {
        self.stringValue = stringValue
        self.source = source
    }

    /// The SDKs' truthy strings: `1`, `true`, `t`, `yes`, `y`, `on`, in any case.
    public var boolValue: Bool {
        Self.truthy.contains(stringValue.lowercased())
    }

    /// The value as a number; 0 when it is not one.
    public var numberValue: Double {
        Double(stringValue.trimmingCharacters(in: .whitespaces)) ?? 0
    }

    /// The UTF-8 bytes of the value.
    public var dataValue: Data { Data(stringValue.utf8) }

    /// The value parsed as JSON (an object, array, string, number, Bool or `NSNull`); `nil`
    /// when it is not JSON.
    public var jsonValue: Any? {
        try? JSONSerialization.jsonObject(with: dataValue, options: .fragmentsAllowed)
    }

    /// The JSON value decoded as `type`.
    ///
    /// - Throws: ``RemoteConfigError/valueNotDecodable(key:type:reason:)`` naming what did not fit.
    public func decoded<T: Decodable>(asType type: T.Type = T.self) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: dataValue)
        } catch {
            throw RemoteConfigError.valueNotDecodable(type: String(describing: T.self), reason: Self.describe(error))
        }
    }

    static let truthy: Set<String> = ["1", "true", "t", "yes", "y", "on"]

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return (path.isEmpty ? "" : "at \(path): ") + context.debugDescription
        default:
            return "\(error)"
        }
    }
}
