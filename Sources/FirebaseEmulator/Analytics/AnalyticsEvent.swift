import Foundation
import CloudFunctions

/// One logged analytics event, as a device's `logEvent` records it.
public struct AnalyticsEvent: Sendable, Hashable, Codable {
    /// The event name, e.g. `select_content`.
    public var name: String
    /// The parameters; values are strings or numbers (int64 or double).
    public var params: [String: JSONValue]
    /// When the event happened.
    public var timestamp: Date
    /// The app instance (installation) that logged it.
    public var appInstanceId: String
    /// The signed-in user id set with `setUserID`, if any.
    public var userId: String?

    /// Creates an event.
    public init(
        name: String, params: [String: JSONValue] = [:], timestamp: Date, appInstanceId: String,
        userId: String? = nil
    ) {
        self.name = name
        self.params = params
        self.timestamp = timestamp
        self.appInstanceId = appInstanceId
        self.userId = userId
    }
}
