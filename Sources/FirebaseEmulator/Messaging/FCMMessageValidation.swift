import CloudFunctions
import Foundation

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
    /// title and body, as each platform gets them (its own data instead of the message's, as
    /// FCM overrides it, its own title and body over the message's, the APNs payload as sent),
    /// the largest of them.
    public static func payloadSize(of message: Message) -> Int {
        func size(data: [String: String], title: String?, body: String?) -> Int {
            data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
                + (title?.utf8.count ?? 0) + (body?.utf8.count ?? 0)
        }
        let (title, body) = (message.notification?.title, message.notification?.body)
        var sizes = [size(data: message.data, title: title, body: body)]
        if let android = message.android {
            sizes.append(size(data: android.data ?? message.data,
                title: android.notification?.title ?? title, body: android.notification?.body ?? body))
        }
        if let webpush = message.webpush {
            sizes.append(size(data: webpush.data ?? message.data,
                title: webpush.notification?["title"]?.stringValue ?? title,
                body: webpush.notification?["body"]?.stringValue ?? body))
        }
        if let payload = message.apns?.payload {
            sizes.append(size(data: message.data, title: nil, body: nil) + payload.serializedData().count)
        }
        return sizes.max() ?? 0
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

extension FCMMessageValidation {
    /// Data keys FCM reserves.
    public static func isReservedDataKey(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key == "gcm" || key.hasPrefix("google.") || key.hasPrefix("gcm.")
    }

    /// Rejects reserved data keys.
    static func validateData(_ data: [String: String]?, field: String) throws(ServiceError) {
        guard let data else { return }
        for key in data.keys.sorted() where isReservedDataKey(key) {
            throw FCMErrorCode.invalidArgument(
                "Invalid data payload key \"\(key)\": \"from\", \"message_type\", \"gcm\" and keys starting with "
                    + "\"google.\" or \"gcm.\" are reserved.", field: field)
        }
    }

    /// Checks an analytics label against `^[a-zA-Z0-9-_.~%]{1,50}$`.
    static func validateLabel(_ label: String?, field: String) throws(ServiceError) {
        guard let label else { return }
        guard (1...50).contains(label.unicodeScalars.count), label.unicodeScalars.allSatisfy(FCMTopicName.isAllowed)
        else {
            throw FCMErrorCode.invalidArgument(
                "Invalid analytics label \"\(label)\": it must match ^[a-zA-Z0-9-_.~%]{1,50}$.", field: field)
        }
    }

    func validateAndroid(_ android: AndroidConfig) throws(ServiceError) {
        try Self.validateData(android.data, field: "message.android.data")
        if let ttl = android.ttl {
            guard let duration = FCMDuration(ttl), !duration.isNegative,
                duration <= FCMDuration(seconds: limits.maxTTLSeconds)
            else {
                throw FCMErrorCode.invalidArgument(
                    "Invalid android.ttl \"\(ttl)\": it must be a duration from 0s to \(limits.maxTTLSeconds)s.",
                    field: "message.android.ttl")
            }
        }
        if let color = android.notification?.color {
            let digits = color.dropFirst()
            guard color.hasPrefix("#"), digits.count == 6, digits.allSatisfy(\.isHexDigit) else {
                throw FCMErrorCode.invalidArgument(
                    "Invalid android.notification.color \"\(color)\": it must be in the form #RRGGBB.",
                    field: "message.android.notification.color")
            }
        }
        try Self.validateLabel(android.fcmOptions?.analyticsLabel, field: "message.android.fcm_options.analytics_label")
    }

    static func validateApns(_ apns: APNSConfig) throws(ServiceError) {
        if let priority = apns.headers["apns-priority"], priority != "5", priority != "10" {
            throw FCMErrorCode.invalidArgument(
                "Invalid apns-priority header \"\(priority)\": it must be \"5\" or \"10\".",
                field: "message.apns.headers")
        }
        if let aps = apns.payload?["aps"], aps.objectValue == nil {
            throw FCMErrorCode.invalidArgument(
                "Invalid apns.payload: \"aps\" must be a dictionary.", field: "message.apns.payload")
        }
        try validateLabel(apns.fcmOptions?.analyticsLabel, field: "message.apns.fcm_options.analytics_label")
    }

    static func validateWebpush(_ webpush: WebpushConfig) throws(ServiceError) {
        try validateData(webpush.data, field: "message.webpush.data")
        if let link = webpush.fcmOptions?.link, !link.lowercased().hasPrefix("https://") {
            throw FCMErrorCode.invalidArgument(
                "Invalid webpush.fcm_options.link \"\(link)\": it must be an HTTPS URL.",
                field: "message.webpush.fcm_options.link")
        }
        try validateLabel(webpush.fcmOptions?.analyticsLabel, field: "message.webpush.fcm_options.analytics_label")
    }
}
