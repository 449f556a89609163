/// Options for every platform (`Message.fcmOptions`, also `AndroidConfig.fcmOptions`).
public struct FCMOptions: Sendable, Hashable, Codable {
    /// The label attached to the message's analytics data, `^[a-zA-Z0-9-_.~%]{1,50}$`.
    public var analyticsLabel: String?

    /// Creates options.
    public init(analyticsLabel: String? = nil) {
        self.analyticsLabel = analyticsLabel
    }
}
