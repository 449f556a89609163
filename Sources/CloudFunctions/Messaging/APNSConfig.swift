/// Apple Push Notification service options of a message (`Message.apns`): headers and the
/// `aps` payload.
public struct APNSConfig: Sendable, Hashable, Codable {
    /// APNs request headers, e.g. `apns-priority`, `apns-push-type`.
    public var headers: [String: String]
    /// The APNs payload, kept verbatim: `{"aps": {...}, <custom keys>}`.
    public var payload: JSONValue?
    /// APNs FCM options.
    public var fcmOptions: APNSFCMOptions?
    /// The Live Activity push token.
    public var liveActivityToken: String?

    /// Creates APNs options.
    public init(
        headers: [String: String] = [:], payload: JSONValue? = nil, fcmOptions: APNSFCMOptions? = nil,
        liveActivityToken: String? = nil
    ) {
        self.headers = headers
        self.payload = payload
        self.fcmOptions = fcmOptions
        self.liveActivityToken = liveActivityToken
    }

    /// A silent background push: `content-available: 1`, with the priority and push type
    /// APNs requires for it (`apns-priority: 5`, `apns-push-type: background`).
    public static let background = APNSConfig(
        headers: ["apns-priority": "5", "apns-push-type": "background"],
        payload: ["aps": ["content-available": 1]]
    )

    /// The payload's `aps` dictionary, when present.
    public var aps: [String: JSONValue]? { payload?["aps"]?.objectValue }

    /// Whether `aps.content-available` is 1: a background push.
    public var isContentAvailable: Bool { aps?["content-available"]?.numberValue == 1 }

    enum CodingKeys: String, CodingKey { case headers, payload, fcmOptions, liveActivityToken }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        headers = try c.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        payload = try c.decodeIfPresent(JSONValue.self, forKey: .payload)
        fcmOptions = try c.decodeIfPresent(APNSFCMOptions.self, forKey: .fcmOptions)
        liveActivityToken = try c.decodeIfPresent(String.self, forKey: .liveActivityToken)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if !headers.isEmpty { try c.encode(headers, forKey: .headers) }
        try c.encodeIfPresent(payload, forKey: .payload)
        try c.encodeIfPresent(fcmOptions, forKey: .fcmOptions)
        try c.encodeIfPresent(liveActivityToken, forKey: .liveActivityToken)
    }
}
