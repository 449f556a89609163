import CloudFunctions
import Foundation

/// A message as a device received it: what `GET .../devices/{token}/messages` lists.
public struct InboxMessage: Sendable, Hashable, Codable {
    /// The message name, `projects/{project}/messages/{id}`.
    public var name: String
    /// The data payload.
    public var data: [String: String]
    /// The notification, if any.
    public var notification: MessageNotification?
    /// The APNs options the message carried.
    public var apns: APNSConfig?
    /// The Android options the message carried.
    public var android: AndroidConfig?
    /// The topic it was sent to, for topic messages.
    public var topic: String?
    /// The condition it was sent to, for condition messages.
    public var condition: String?
    /// When it was sent (RFC 3339 with milliseconds).
    public var sendTime: String
}
