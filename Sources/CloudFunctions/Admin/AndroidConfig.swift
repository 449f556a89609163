/// Android delivery options of a message.
public struct AndroidConfig: Sendable, Hashable, Codable {
    /// Delivery priority.
    public enum Priority: String, Sendable, Hashable, Codable {
        case normal
        case high
    }

    /// Delivery priority; `high` wakes a sleeping device.
    public var priority: Priority?
    /// How long FCM keeps the message while the device is offline, e.g. `3600s`.
    public var ttl: String?
    /// Messages with the same key replace each other while undelivered.
    public var collapseKey: String?

    /// Creates Android options.
    public init(priority: Priority? = nil, ttl: String? = nil, collapseKey: String? = nil) {
        self.priority = priority
        self.ttl = ttl
        self.collapseKey = collapseKey
    }
}
