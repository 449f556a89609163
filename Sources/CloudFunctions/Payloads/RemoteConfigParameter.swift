import Foundation

/// A Remote Config parameter: a default value plus values chosen by conditions.
public struct RemoteConfigParameter: Sendable, Hashable {
    /// The value used when no condition applies; absent means the key is left out of fetches.
    public var defaultValue: RemoteConfigParameterValue?
    /// Values keyed by condition name; the one whose condition comes first in the template wins.
    public var conditionalValues: [String: RemoteConfigParameterValue]
    /// A description (≤100 characters).
    public var description: String?
    /// The declared type of the values; absent means `STRING`.
    public var valueType: RemoteConfigParameterValueType?

    /// Creates a parameter.
    public init(
        defaultValue: RemoteConfigParameterValue? = nil,
        conditionalValues: [String: RemoteConfigParameterValue] = [:],
        description: String? = nil,
        valueType: RemoteConfigParameterValueType? = nil
    ) {
        self.defaultValue = defaultValue
        self.conditionalValues = conditionalValues
        self.description = description
        self.valueType = valueType
    }
}

extension RemoteConfigParameter: Codable {
    private enum CodingKeys: String, CodingKey {
        case defaultValue, conditionalValues, description, valueType
    }

    /// Decodes leniently: every field may be missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        defaultValue = try container.decodeIfPresent(RemoteConfigParameterValue.self, forKey: .defaultValue)
        conditionalValues =
            try container.decodeIfPresent([String: RemoteConfigParameterValue].self, forKey: .conditionalValues) ?? [:]
        description = try container.decodeIfPresent(String.self, forKey: .description)
        valueType = try container.decodeIfPresent(RemoteConfigParameterValueType.self, forKey: .valueType)
    }

    /// Encodes the present fields; an empty `conditionalValues` map is left out, as proto3 JSON does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(defaultValue, forKey: .defaultValue)
        if !conditionalValues.isEmpty {
            try container.encode(conditionalValues, forKey: .conditionalValues)
        }
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(valueType, forKey: .valueType)
    }
}

/// The `valueType` of a parameter; unknown names decode and are rejected by validation.
public struct RemoteConfigParameterValueType: RawRepresentable, Codable, Sendable, Hashable {
    /// The wire name, e.g. `NUMBER`.
    public var rawValue: String

    /// Wraps a wire name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `PARAMETER_VALUE_TYPE_UNSPECIFIED` (treated as `STRING`).
    public static let unspecified = Self(rawValue: "PARAMETER_VALUE_TYPE_UNSPECIFIED")
    /// `STRING`.
    public static let string = Self(rawValue: "STRING")
    /// `BOOLEAN`: values are `true` or `false` (any letter case).
    public static let boolean = Self(rawValue: "BOOLEAN")
    /// `NUMBER`: values are decimal numbers.
    public static let number = Self(rawValue: "NUMBER")
    /// `JSON`: values are JSON text.
    public static let json = Self(rawValue: "JSON")

    /// The names validation accepts.
    public static let known: [Self] = [.unspecified, .string, .boolean, .number, .json]
}
