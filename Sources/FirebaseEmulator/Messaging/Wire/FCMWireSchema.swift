import Foundation
import CloudFunctions

/// The proto3 JSON shape of one FCM HTTP v1 message type: its fields and their kinds.
///
/// Used by ``FCMWireNormalizer`` to accept both JSON names of a field (`collapseKey` and the
/// proto name `collapse_key`), to check value types and to reject unknown fields the way the
/// real endpoint does.
package struct FCMWireSchema: Sendable {
    /// The kind of value a field holds.
    public indirect enum Kind: Sendable {
        /// A JSON string.
        case string
        /// A JSON boolean.
        case bool
        /// A 32-bit integer: a JSON number or a string holding one.
        case int32
        /// A floating-point number: a JSON number or a string holding one.
        case number
        /// A `google.protobuf.Duration` string such as `3600s` or `1.5s`.
        case duration
        /// A list of strings.
        case stringList
        /// A list of durations.
        case durationList
        /// A `map<string, string>`.
        case stringMap
        /// A `google.protobuf.Struct`: any JSON object, kept verbatim.
        case freeform
        /// An enum; `names` are the canonical spellings, matched case-insensitively.
        case enumeration(typeName: String, names: [String])
        /// A nested message.
        case message(FCMWireSchema)
    }

    /// One field: its lowerCamelCase JSON name and its kind.
    public struct Field: Sendable {
        /// The lowerCamelCase JSON name, written on output.
        public var name: String
        /// The kind of value.
        public var kind: Kind
    }

    /// The fully qualified proto type name, used in error messages.
    public let typeName: String
    /// The fields, in declaration order.
    public let fields: [Field]
    /// Every accepted spelling (camelCase and snake_case) mapped to its field.
    let lookup: [String: Field]

    /// Creates a schema from `(camelName, kind)` pairs.
    public init(typeName: String, fields: [(String, Kind)]) {
        self.typeName = typeName
        self.fields = fields.map { Field(name: $0.0, kind: $0.1) }
        var lookup: [String: Field] = [:]
        for field in self.fields {
            lookup[field.name] = field
            lookup[FCMWireSchema.snakeCase(field.name)] = field
        }
        self.lookup = lookup
    }

    /// The proto field name for a lowerCamelCase JSON name: `collapseKey` → `collapse_key`.
    public static func snakeCase(_ name: String) -> String {
        var output = ""
        for character in name {
            if character.isUppercase {
                output += "_" + character.lowercased()
            } else {
                output.append(character)
            }
        }
        return output
    }
}
