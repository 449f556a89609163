import Foundation
import CloudFunctions

/// APNs FCM options (`ApnsConfig.fcmOptions`).
public struct FCMApnsOptions: Sendable, Hashable, Codable {
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
