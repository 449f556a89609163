/// Android delivery options of a message (`Message.android`).
public struct AndroidConfig: Sendable, Hashable, Codable {
    /// Delivery priority; decoding accepts any case (`HIGH`, `high`), encoding writes lowercase.
    public enum Priority: String, Sendable, Hashable, Codable, CaseIterable {
        /// May be delayed to save battery (APNs priority 5).
        case normal
        /// Delivered at once, waking a sleeping device (APNs priority 10).
        case high

        public init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let priority = Priority(rawValue: text.lowercased()) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "unknown Android priority \(text)"))
            }
            self = priority
        }
    }

    /// Delivery priority; `high` wakes a sleeping device.
    public var priority: Priority?
    /// How long FCM keeps the message while the device is offline, e.g. `3600s`.
    public var ttl: String?
    /// Messages with the same key replace each other while undelivered.
    public var collapseKey: String?
    /// The package name the registration token must match.
    public var restrictedPackageName: String?
    /// Data that replaces `Message.data` on Android.
    public var data: [String: String]?
    /// The Android notification.
    public var notification: AndroidNotification?
    /// Android FCM options.
    public var fcmOptions: FCMOptions?
    /// Whether the message may be delivered while the device is in direct boot mode.
    public var directBootOk: Bool?
    /// Whether the message may be delivered over a bandwidth-constrained network.
    public var bandwidthConstrainedOk: Bool?
    /// Whether the message may be delivered over a restricted satellite network.
    public var restrictedSatelliteOk: Bool?

    /// Creates Android options.
    public init(
        priority: Priority? = nil, ttl: String? = nil, collapseKey: String? = nil,
        restrictedPackageName: String? = nil, data: [String: String]? = nil,
        notification: AndroidNotification? = nil, fcmOptions: FCMOptions? = nil, directBootOk: Bool? = nil
    ) {
        self.priority = priority
        self.ttl = ttl
        self.collapseKey = collapseKey
        self.restrictedPackageName = restrictedPackageName
        self.data = data
        self.notification = notification
        self.fcmOptions = fcmOptions
        self.directBootOk = directBootOk
    }
}
