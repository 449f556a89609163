/// An FCM message in the HTTP v1 wire shape: what authors send through `context.messaging`,
/// what the emulator validates and stores, and what the HTTP clients put on the wire.
///
/// Encodes to the v1 JSON form (`{"topic": "PUSH_RC", "data": {...}, "apns": {...}}`), leaving
/// out what is not set.
public struct Message: Sendable, Hashable, Codable {
    /// Who receives a message.
    public enum Target: Sendable, Hashable {
        /// One device registration token.
        case token(String)
        /// Every device subscribed to a topic (the name without `/topics/`).
        case topic(String)
        /// Devices whose topics satisfy a condition such as `'A' in topics && 'B' in topics`.
        case condition(String)
    }

    /// Who receives the message.
    public var target: Target
    /// Key-value data delivered to the app.
    public var data: [String: String]
    /// A notification shown to the user.
    public var notification: MessageNotification?
    /// Android-specific options.
    public var android: AndroidConfig?
    /// Apple-specific options (APNs headers and payload).
    public var apns: APNSConfig?
    /// Web push options.
    public var webpush: WebpushConfig?
    /// Options for every platform.
    public var fcmOptions: FCMOptions?

    /// Creates a message; a `/topics/` prefix on a topic name is dropped.
    public init(
        _ target: Target,
        data: [String: String] = [:],
        notification: MessageNotification? = nil,
        android: AndroidConfig? = nil,
        apns: APNSConfig? = nil,
        webpush: WebpushConfig? = nil,
        fcmOptions: FCMOptions? = nil
    ) {
        if case .topic(let topic) = target, topic.hasPrefix("/topics/") {
            self.target = .topic(String(topic.dropFirst(8)))
        } else {
            self.target = target
        }
        self.data = data
        self.notification = notification
        self.android = android
        self.apns = apns
        self.webpush = webpush
        self.fcmOptions = fcmOptions
    }

    /// The v1 field names.
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case token, topic, condition, data, notification, android, apns, webpush, fcmOptions
    }

    /// Decodes the v1 JSON form; the first of `token`, `topic`, `condition` present is the target.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let target: Target
        if let token = try c.decodeIfPresent(String.self, forKey: .token) {
            target = .token(token)
        } else if let topic = try c.decodeIfPresent(String.self, forKey: .topic) {
            target = .topic(topic)
        } else if let condition = try c.decodeIfPresent(String.self, forKey: .condition) {
            target = .condition(condition)
        } else {
            throw DecodingError.dataCorruptedError(
                forKey: .token,
                in: c,
                debugDescription: "a message needs one of token, topic or condition"
            )
        }
        self.init(
            target,
            data: try c.decodeIfPresent([String: String].self, forKey: .data) ?? [:],
            notification: try c.decodeIfPresent(MessageNotification.self, forKey: .notification),
            android: try c.decodeIfPresent(AndroidConfig.self, forKey: .android),
            apns: try c.decodeIfPresent(APNSConfig.self, forKey: .apns),
            webpush: try c.decodeIfPresent(WebpushConfig.self, forKey: .webpush),
            fcmOptions: try c.decodeIfPresent(FCMOptions.self, forKey: .fcmOptions)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch target {
        case .token(let token): try c.encode(token, forKey: .token)
        case .topic(let topic): try c.encode(topic, forKey: .topic)
        case .condition(let condition): try c.encode(condition, forKey: .condition)
        }
        if !data.isEmpty { try c.encode(data, forKey: .data) }
        try c.encodeIfPresent(notification, forKey: .notification)
        try c.encodeIfPresent(android, forKey: .android)
        try c.encodeIfPresent(apns, forKey: .apns)
        try c.encodeIfPresent(webpush, forKey: .webpush)
        try c.encodeIfPresent(fcmOptions, forKey: .fcmOptions)
    }
}
