import Foundation
import CloudFunctions

/// An FCM HTTP v1 `Message`.
///
/// Decode it with ``parse(_:path:)`` (or `Decodable`), which accepts camelCase and snake_case
/// field names and strips the `/topics/` prefix from `topic`; encoding writes camelCase.
/// Decoding checks JSON shape only; the FCM rules are in ``FCMMessageValidation``.
public struct FCMMessage: Sendable, Hashable, Codable {
    /// Output only: `projects/{p}/messages/{id}`.
    public var name: String?
    /// The target registration token.
    public var token: String?
    /// The target topic, without `/topics/`.
    public var topic: String?
    /// The target condition.
    public var condition: String?
    /// Custom key/value data.
    public var data: [String: String]?
    /// The platform-independent notification.
    public var notification: FCMNotification?
    /// Android options.
    public var android: FCMAndroidConfig?
    /// Web push options.
    public var webpush: FCMWebpushConfig?
    /// APNs options.
    public var apns: FCMApnsConfig?
    /// Platform-independent FCM options.
    public var fcmOptions: FCMOptions?

    /// Creates a message for a target.
    public init(
        target: FCMMessageTarget, data: [String: String]? = nil, notification: FCMNotification? = nil,
        android: FCMAndroidConfig? = nil, apns: FCMApnsConfig? = nil, webpush: FCMWebpushConfig? = nil,
        fcmOptions: FCMOptions? = nil
    ) {
        switch target {
        case .token(let token): self.token = token
        case .topic(let topic): self.topic = FCMTopicName.stripPrefix(topic)
        case .condition(let condition): self.condition = condition
        }
        self.data = data
        self.notification = notification
        self.android = android
        self.apns = apns
        self.webpush = webpush
        self.fcmOptions = fcmOptions
    }

    /// The single target, or `nil` when none or more than one of token/topic/condition is set.
    public var target: FCMMessageTarget? {
        switch (token, topic, condition) {
        case (let token?, nil, nil): .token(token)
        case (nil, let topic?, nil): .topic(topic)
        case (nil, nil, let condition?): .condition(condition)
        default: nil
        }
    }

    /// The message as canonical camelCase JSON.
    public var jsonValue: JSONValue {
        (try? JSONValue(encoding: self)) ?? .object([:])
    }
}
