import Foundation

/// A Remote Config client template: conditions in priority order, parameters, groups and version.
///
/// A template that was never published is ``empty``: version 0 with no conditions or parameters.
public struct RemoteConfigTemplate: Sendable, Hashable {
    /// The conditions; index 0 has the highest priority.
    public var conditions: [RemoteConfigCondition]
    /// The top-level parameters, by key.
    public var parameters: [String: RemoteConfigParameter]
    /// The parameter groups, by group name.
    public var parameterGroups: [String: RemoteConfigParameterGroup]
    /// The version metadata; absent in most publish requests.
    public var version: TemplateVersion?

    /// Creates a template.
    public init(
        conditions: [RemoteConfigCondition] = [],
        parameters: [String: RemoteConfigParameter] = [:],
        parameterGroups: [String: RemoteConfigParameterGroup] = [:],
        version: TemplateVersion? = nil
    ) {
        self.conditions = conditions
        self.parameters = parameters
        self.parameterGroups = parameterGroups
        self.version = version
    }

    /// The template of a project that never published one.
    public static let empty = RemoteConfigTemplate()

    /// The version number, 0 when the template has none (never published).
    public var versionNumber: Int64 { version?.versionNumber ?? 0 }

    /// Every parameter, top-level and grouped, in one flat key space.
    ///
    /// A key that (invalidly) appears in several places resolves to the top-level one, else to the
    /// group whose name sorts first; validation rejects such templates.
    public var allParameters: [String: RemoteConfigParameter] {
        var result = parameters
        for groupName in parameterGroups.keys.sorted(by: >) {
            for (key, parameter) in parameterGroups[groupName]?.parameters ?? [:] where parameters[key] == nil {
                result[key] = parameter
            }
        }
        return result
    }

    /// The same content with the version replaced, as the store does on publish and rollback.
    public func withVersion(_ version: TemplateVersion?) -> RemoteConfigTemplate {
        var copy = self
        copy.version = version
        return copy
    }
}

extension RemoteConfigTemplate: Codable {
    private enum CodingKeys: String, CodingKey {
        case conditions, parameters, parameterGroups, version
    }

    /// Decodes leniently: absent collections are empty and `version` may be missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        conditions = try container.decodeIfPresent([RemoteConfigCondition].self, forKey: .conditions) ?? []
        parameters = try container.decodeIfPresent([String: RemoteConfigParameter].self, forKey: .parameters) ?? [:]
        parameterGroups =
            try container.decodeIfPresent([String: RemoteConfigParameterGroup].self, forKey: .parameterGroups) ?? [:]
        version = try container.decodeIfPresent(TemplateVersion.self, forKey: .version)
    }

    /// Encodes all three collections (even when empty) and the version when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(conditions, forKey: .conditions)
        try container.encode(parameters, forKey: .parameters)
        try container.encode(parameterGroups, forKey: .parameterGroups)
        try container.encodeIfPresent(version, forKey: .version)
    }

    /// The template as a JSON value (for response bodies and events).
    public var jsonValue: JSONValue {
        (try? JSONValue(encoding: self)) ?? .object([:])
    }
}
