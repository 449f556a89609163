import Foundation
import CloudFunctions

/// Android-specific options of an FCM message (`Message.android`).
public struct FCMAndroidConfig: Sendable, Hashable, Codable {
    /// Groups messages that can be collapsed, so only the last one is delivered.
    public var collapseKey: String?
    /// The delivery priority.
    public var priority: FCMAndroidPriority?
    /// How long FCM keeps the message while the device is offline, e.g. `"3600s"`.
    public var ttl: String?
    /// The package name the registration token must match.
    public var restrictedPackageName: String?
    /// Data that replaces `Message.data` on Android.
    public var data: [String: String]?
    /// The Android notification.
    public var notification: FCMAndroidNotification?
    /// Android FCM options.
    public var fcmOptions: FCMOptions?
    /// Whether the message may be delivered while the device is in direct boot mode.
    public var directBootOk: Bool?
    /// Whether the message may be delivered over a bandwidth-constrained network.
    public var bandwidthConstrainedOk: Bool?
    /// Whether the message may be delivered over a restricted satellite network.
    public var restrictedSatelliteOk: Bool?

    /// Creates an Android configuration.
    public init(
        collapseKey: String? = nil, priority: FCMAndroidPriority? = nil, ttl: String? = nil,
        restrictedPackageName: String? = nil, data: [String: String]? = nil,
        notification: FCMAndroidNotification? = nil, fcmOptions: FCMOptions? = nil, directBootOk: Bool? = nil
    ) {
        self.collapseKey = collapseKey
        self.priority = priority
        self.ttl = ttl
        self.restrictedPackageName = restrictedPackageName
        self.data = data
        self.notification = notification
        self.fcmOptions = fcmOptions
        self.directBootOk = directBootOk
    }

    /// The parsed `ttl`, when present and well formed.
    public var ttlDuration: FCMDuration? { ttl.flatMap(FCMDuration.init) }
}
