import Foundation
import CloudFunctions

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
