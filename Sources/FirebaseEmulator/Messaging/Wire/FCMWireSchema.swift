import CloudFunctions
import Foundation

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

extension FCMWireSchema {
    private static let prefix = "type.googleapis.com/google.firebase.fcm.v1."

    /// `SendMessageRequest`: `{"message": Message, "validateOnly": bool}`.
    public static let sendRequest = FCMWireSchema(
        typeName: prefix + "SendMessageRequest",
        fields: [("message", .message(message)), ("validateOnly", .bool)]
    )

    /// `Message`.
    public static let message = FCMWireSchema(
        typeName: prefix + "Message",
        fields: [
            ("name", .string), ("data", .stringMap), ("notification", .message(notification)),
            ("android", .message(androidConfig)), ("webpush", .message(webpushConfig)),
            ("apns", .message(apnsConfig)), ("fcmOptions", .message(fcmOptions)),
            ("token", .string), ("topic", .string), ("condition", .string),
        ]
    )

    /// `Notification`.
    public static let notification = FCMWireSchema(
        typeName: prefix + "Notification",
        fields: [("title", .string), ("body", .string), ("image", .string)]
    )

    /// `FcmOptions` (message level and Android).
    public static let fcmOptions = FCMWireSchema(
        typeName: prefix + "FcmOptions",
        fields: [("analyticsLabel", .string)]
    )

    /// `AndroidConfig`.
    public static let androidConfig = FCMWireSchema(
        typeName: prefix + "AndroidConfig",
        fields: [
            ("collapseKey", .string),
            ("priority", .enumeration(typeName: prefix + "AndroidMessagePriority", names: ["normal", "high"])),
            ("ttl", .duration), ("restrictedPackageName", .string), ("data", .stringMap),
            ("notification", .message(androidNotification)),
            ("fcmOptions", .message(FCMWireSchema(typeName: prefix + "AndroidFcmOptions",
                                                  fields: [("analyticsLabel", .string)]))),
            ("directBootOk", .bool), ("bandwidthConstrainedOk", .bool), ("restrictedSatelliteOk", .bool),
        ]
    )

    /// `AndroidNotification`.
    public static let androidNotification = FCMWireSchema(
        typeName: prefix + "AndroidNotification",
        fields: [
            ("title", .string), ("body", .string), ("icon", .string), ("color", .string), ("sound", .string),
            ("tag", .string), ("clickAction", .string), ("bodyLocKey", .string), ("bodyLocArgs", .stringList),
            ("titleLocKey", .string), ("titleLocArgs", .stringList), ("channelId", .string), ("ticker", .string),
            ("sticky", .bool), ("eventTime", .string), ("localOnly", .bool),
            ("notificationPriority", .enumeration(typeName: prefix + "AndroidNotification.NotificationPriority",
                names: ["PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT",
                        "PRIORITY_HIGH", "PRIORITY_MAX"])),
            ("defaultSound", .bool), ("defaultVibrateTimings", .bool), ("defaultLightSettings", .bool),
            ("vibrateTimings", .durationList),
            ("visibility", .enumeration(typeName: prefix + "AndroidNotification.Visibility",
                names: ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"])),
            ("notificationCount", .int32), ("lightSettings", .message(lightSettings)), ("image", .string),
            ("proxy", .enumeration(typeName: prefix + "AndroidNotification.Proxy",
                names: ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"])),
        ]
    )

    /// `LightSettings`.
    public static let lightSettings = FCMWireSchema(
        typeName: prefix + "LightSettings",
        fields: [
            ("color", .message(FCMWireSchema(typeName: "type.googleapis.com/google.type.Color",
                fields: [("red", .number), ("green", .number), ("blue", .number), ("alpha", .number)]))),
            ("lightOnDuration", .duration), ("lightOffDuration", .duration),
        ]
    )

    /// `ApnsConfig`.
    public static let apnsConfig = FCMWireSchema(
        typeName: prefix + "ApnsConfig",
        fields: [
            ("headers", .stringMap), ("payload", .freeform),
            ("fcmOptions", .message(FCMWireSchema(typeName: prefix + "ApnsFcmOptions",
                fields: [("analyticsLabel", .string), ("image", .string)]))),
            ("liveActivityToken", .string),
        ]
    )

    /// `WebpushConfig`.
    public static let webpushConfig = FCMWireSchema(
        typeName: prefix + "WebpushConfig",
        fields: [
            ("headers", .stringMap), ("data", .stringMap), ("notification", .freeform),
            ("fcmOptions", .message(FCMWireSchema(typeName: prefix + "WebpushFcmOptions",
                fields: [("link", .string), ("analyticsLabel", .string)]))),
        ]
    )
}
