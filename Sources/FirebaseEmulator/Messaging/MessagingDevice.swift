import Foundation

/// A registered device as the console lists it: its token, platform and topics.
public struct MessagingDevice: Sendable, Hashable {
    /// The FCM registration token.
    public var token: String
    /// The platform it registered with (`ios`, `android`, `web`), when it said.
    public var platform: String?
    /// When it registered.
    public var createdAt: Date
    /// The topics it is subscribed to, sorted.
    public var topics: [String]
}
