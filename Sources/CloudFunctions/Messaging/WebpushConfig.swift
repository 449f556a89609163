/// Web push options of a message (`Message.webpush`).
public struct WebpushConfig: Sendable, Hashable, Codable {
    /// Web push protocol headers, e.g. `TTL`, `Urgency`.
    public var headers: [String: String]?
    /// Data that replaces `Message.data` for web push.
    public var data: [String: String]?
    /// The Web Notification options, kept verbatim.
    public var notification: JSONValue?
    /// Web push FCM options.
    public var fcmOptions: WebpushFCMOptions?

    /// Creates a web push configuration.
    public init(
        headers: [String: String]? = nil, data: [String: String]? = nil, notification: JSONValue? = nil,
        fcmOptions: WebpushFCMOptions? = nil
    ) {
        self.headers = headers
        self.data = data
        self.notification = notification
        self.fcmOptions = fcmOptions
    }
}
