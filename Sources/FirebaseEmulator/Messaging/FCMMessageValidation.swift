import Foundation
import CloudFunctions

/// The FCM HTTP v1 send-time rules for a message.
///
/// Every failure is `INVALID_ARGUMENT` with an `FcmError` detail and a `BadRequest` field
/// violation naming the field at fault.
package struct FCMMessageValidation: Sendable, Hashable {
    /// Size and time limits.
    public struct Limits: Sendable, Hashable {
        /// The largest payload (data keys and values, notification title and body) in bytes.
        public var maxPayloadBytes: Int
        /// The largest payload for messages to a topic or condition.
        public var maxTopicPayloadBytes: Int
        /// The longest Android `ttl`, in seconds (28 days).
        public var maxTTLSeconds: Int64

        /// Creates limits.
        public init(maxPayloadBytes: Int = 4096, maxTopicPayloadBytes: Int = 4096, maxTTLSeconds: Int64 = 2_419_200) {
            self.maxPayloadBytes = maxPayloadBytes
            self.maxTopicPayloadBytes = maxTopicPayloadBytes
            self.maxTTLSeconds = maxTTLSeconds
        }

        /// 4096 bytes for every target (what FCM accepts in practice; the default).
        public static let standard = Limits()
        /// The 2048-byte topic limit the `ErrorCode` reference names.
        public static let documentedTopicLimit = Limits(maxTopicPayloadBytes: 2048)
    }

    /// The limits applied.
    public var limits: Limits
    /// How condition operators group.
    public var conditionGrouping: FCMTopicCondition.Grouping

    /// Creates a validator.
    public init(limits: Limits = .standard, conditionGrouping: FCMTopicCondition.Grouping = .leftToRight) {
        self.limits = limits
        self.conditionGrouping = conditionGrouping
    }

    /// Checks `message`.
    ///
    /// - Returns: the message's single target (topic without `/topics/`).
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` with FCM details for the first broken rule.
    @discardableResult
    public func validate(_ message: Message) throws(ServiceError) -> Message.Target {
        let target = try validateTarget(message)
        try Self.validateData(message.data, field: "message.data")
        try validatePayloadSize(message, target: target)
        try Self.validateLabel(message.fcmOptions?.analyticsLabel, field: "message.fcm_options.analytics_label")
        if let android = message.android { try validateAndroid(android) }
        if let apns = message.apns { try Self.validateApns(apns) }
        if let webpush = message.webpush { try Self.validateWebpush(webpush) }
        return target
    }

    /// Checks the target's syntax: a token's shape, a topic name, a condition that parses.
    func validateTarget(_ message: Message) throws(ServiceError) -> Message.Target {
        switch message.target {
        case .token(let token):
            try FCMRegistrationToken.validate(token)
            return message.target
        case .topic(let topic):
            return .topic(try FCMTopicName.validated(topic))
        case .condition(let condition):
            _ = try FCMTopicCondition(parsing: condition, grouping: conditionGrouping)
            return message.target
        }
    }

    /// The payload size FCM limits: UTF-8 bytes of data keys and values plus notification
    /// title and body.
    public static func payloadSize(of message: Message) -> Int {
        var size = 0
        for (key, value) in message.data { size += key.utf8.count + value.utf8.count }
        size += message.notification?.title?.utf8.count ?? 0
        size += message.notification?.body?.utf8.count ?? 0
        return size
    }

    private func validatePayloadSize(_ message: Message, target: Message.Target) throws(ServiceError) {
        let limit: Int
        if case .token = target { limit = limits.maxPayloadBytes } else { limit = limits.maxTopicPayloadBytes }
        let size = Self.payloadSize(of: message)
        guard size <= limit else {
            throw FCMErrorCode.invalidArgument(
                "Message is too big: the payload is \(size) bytes, the limit is \(limit) bytes.", field: "message")
        }
    }
}
