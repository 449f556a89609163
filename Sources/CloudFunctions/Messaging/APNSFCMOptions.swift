/// APNs FCM options (`APNSConfig.fcmOptions`).
public struct APNSFCMOptions: Sendable, Hashable, Codable {
    /// The analytics label.
    public var analyticsLabel: String?
    /// The URL of an image.
    public var image: String?

    /// Creates options.
    public init(analyticsLabel: String? = nil, image: String? = nil) {
        self.analyticsLabel = analyticsLabel
        self.image = image
    }
}
