import Foundation

/// A named condition of a client template; its position in the template is its priority.
public struct RemoteConfigCondition: Sendable, Hashable {
    /// The condition's name, which `conditionalValues` refer to.
    public var name: String
    /// The expression in the condition language, e.g. `device.os == 'ios'`.
    public var expression: String
    /// The console colour (`BLUE`, `BROWN`, ...); cosmetic.
    public var tagColor: String?

    /// Creates a condition.
    public init(name: String, expression: String, tagColor: String? = nil) {
        self.name = name
        self.expression = expression
        self.tagColor = tagColor
    }

    /// The tag colours validation accepts (plus `CONDITION_DISPLAY_COLOR_UNSPECIFIED`).
    public static let tagColors: Set<String> = [
        "CONDITION_DISPLAY_COLOR_UNSPECIFIED", "BLUE", "BROWN", "CYAN", "DEEP_ORANGE", "GREEN", "INDIGO", "LIME",
        "ORANGE", "PINK", "PURPLE", "TEAL",
    ]
}

extension RemoteConfigCondition: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, expression, tagColor
    }

    /// Decodes leniently: a missing name or expression becomes empty (validation rejects it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? ""
        expression = try container.decodeIfPresent(String.self, forKey: .expression) ?? ""
        tagColor = try container.decodeIfPresent(String.self, forKey: .tagColor)
    }

    /// Encodes name and expression always, `tagColor` when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(expression, forKey: .expression)
        try container.encodeIfPresent(tagColor, forKey: .tagColor)
    }
}
