/// An FCM message, as the HTTP v1 API and the Admin SDKs describe it.
///
/// Encodes to the v1 wire form: `{"topic": "PUSH_RC", "data": {...}, "apns": {...}, ...}`.
public struct Message: Sendable, Hashable, Codable {
    /// Who receives a message.
    public enum Target: Sendable, Hashable {
        /// One device registration token.
        case token(String)
        /// Every device subscribed to a topic.
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

    /// Creates a message.
    public init(
        _ target: Target,
        data: [String: String] = [:],
        notification: MessageNotification? = nil,
        android: AndroidConfig? = nil,
        apns: APNSConfig? = nil
    ) {
        self.target = target
        self.data = data
        self.notification = notification
        self.android = android
        self.apns = apns
    }

    enum CodingKeys: String, CodingKey { case token, topic, condition, data, notification, android, apns }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let token = try c.decodeIfPresent(String.self, forKey: .token) {
            target = .token(token)
        } else if let topic = try c.decodeIfPresent(String.self, forKey: .topic) {
            target = .topic(topic.hasPrefix("/topics/") ? String(topic.dropFirst(8)) : topic)
        } else if let condition = try c.decodeIfPresent(String.self, forKey: .condition) {
            target = .condition(condition)
        } else {
            throw DecodingError.dataCorruptedError(
                forKey: .token,
                in: c,
                debugDescription: "a message needs one of token, topic or condition"
            )
        }
        data = try c.decodeIfPresent([String: String].self, forKey: .data) ?? [:]
        notification = try c.decodeIfPresent(MessageNotification.self, forKey: .notification)
        android = try c.decodeIfPresent(AndroidConfig.self, forKey: .android)
        apns = try c.decodeIfPresent(APNSConfig.self, forKey: .apns)
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
    }
}

/// The user-visible part of a message.
public struct MessageNotification: Sendable, Hashable, Codable {
    /// The title.
    public var title: String?
    /// The body text.
    public var body: String?
    /// An image URL.
    public var image: String?

    /// Creates a notification.
    public init(title: String? = nil, body: String? = nil, image: String? = nil) {
        self.title = title
        self.body = body
        self.image = image
    }
}
