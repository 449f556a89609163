/// The notification of a message shown on every platform (`Message.notification`).
public struct MessageNotification: Sendable, Hashable, Codable {
    /// The title.
    public var title: String?
    /// The body text.
    public var body: String?
    /// The URL of an image shown in the notification.
    public var image: String?

    /// Creates a notification.
    public init(title: String? = nil, body: String? = nil, image: String? = nil) {
        self.title = title
        self.body = body
        self.image = image
    }
}
