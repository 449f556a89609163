import Foundation
import CloudFunctions

/// APNs-specific options of an FCM message (`Message.apns`).
public struct FCMApnsConfig: Sendable, Hashable, Codable {
    /// APNs request headers, e.g. `apns-priority`, `apns-push-type`.
    public var headers: [String: String]?
    /// The APNs payload, kept verbatim: `{"aps": {...}, <custom keys>}`.
    public var payload: JSONValue?
/// APNs FCM options.
    public var fcmOptions: FCMApnsOptions?
    /// The Live Activity push token.
    public var liveActivityToken: String?

    /// Creates an APNs configuration.
    public init(headers: [String: String]? = nil, payload: JSONValue? = nil, fcmOptions: FCMApnsOptions? = nil) {
        self.headers = headers
        self.payload = payload
        self.fcmOptions = fcmOptions
    }

    /// The payload's `aps` dictionary, when present.
    public var aps: [String: JSONValue]? { payload?["aps"]?.objectValue }

    /// Whether `aps.content-available` is 1 (a background push).
    public var isContentAvailable: Bool { aps?["content-available"]?.numberValue == 1 }
}
