import Foundation

/// A named group of parameters. Grouping is for people only: fetches see a flat key space.
public struct RemoteConfigParameterGroup: Sendable, Hashable {
    /// A description (≤256 characters).
    public var description: String?
    /// The parameters in the group, by key.
    public var parameters: [String: RemoteConfigParameter]

    /// Creates a group.
    public init(description: String? = nil, parameters: [String: RemoteConfigParameter] = [:]) {
        self.description = description
        self.parameters = parameters
    }
}

extension RemoteConfigParameterGroup: Codable {
    private enum CodingKeys: String, CodingKey {
        case description, parameters
    }

    /// Decodes leniently: both fields may be missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        parameters = try container.decodeIfPresent([String: RemoteConfigParameter].self, forKey: .parameters) ?? [:]
    }

    /// Encodes the description when present and the parameters always.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encode(parameters, forKey: .parameters)
    }
}
