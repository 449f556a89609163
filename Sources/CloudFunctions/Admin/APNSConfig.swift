/// Apple Push Notification service options of a message: headers and the `aps` payload.
public struct APNSConfig: Sendable, Hashable, Codable {
    /// APNs request headers, e.g. `apns-priority`.
    public var headers: [String: String]
    /// The APNs payload, holding the `aps` dictionary.
    public var payload: JSONValue?

    /// Creates APNs options.
    public init(headers: [String: String] = [:], payload: JSONValue? = nil) {
        self.headers = headers
        self.payload = payload
    }

    /// A silent background push: `content-available: 1`, with the priority and push type
    /// APNs requires for it (`apns-priority: 5`, `apns-push-type: background`).
    public static let background = APNSConfig(
        headers: ["apns-priority": "5", "apns-push-type": "background"],
        payload: ["aps": ["content-available": 1]]
    )

    enum CodingKeys: String, CodingKey { case headers, payload }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        headers = try c.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        payload = try c.decodeIfPresent(JSONValue.self, forKey: .payload)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if !headers.isEmpty { try c.encode(headers, forKey: .headers) }
        try c.encodeIfPresent(payload, forKey: .payload)
    }
}
