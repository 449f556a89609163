import Foundation
import CloudFunctions

/// The platform-independent notification of an FCM message (`Message.notification`).
public struct FCMNotification: Sendable, Hashable, Codable {
    /// The notification's title.
    public var title: String?
    /// The notification's body text.
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
