/// Web push FCM options (`WebpushConfig.fcmOptions`).
public struct WebpushFCMOptions: Sendable, Hashable, Codable {
    /// The link opened on click; must be `https`.
    public var link: String?
    /// The analytics label.
    public var analyticsLabel: String?

    /// Creates options.
    public init(link: String? = nil, analyticsLabel: String? = nil) {
        self.link = link
        self.analyticsLabel = analyticsLabel
    }
}
