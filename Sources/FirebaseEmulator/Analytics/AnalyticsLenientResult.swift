import Foundation
import CloudFunctions

/// What the device SDK would record for one `logEvent` call.
package struct AnalyticsLenientResult: Sendable, Hashable {
    /// The event as kept (bad parameters dropped, `firebase_error` parameters added), or `nil`
    /// when the event is dropped.
    public var event: AnalyticsEvent?
    /// The `error` event the SDK logs instead of a dropped event with an invalid name.
    public var errorEvent: AnalyticsEvent?
    /// Every problem found, in the order found.
    public var errors: [AnalyticsSDKError]

    /// Creates a result.
    public init(event: AnalyticsEvent?, errorEvent: AnalyticsEvent? = nil, errors: [AnalyticsSDKError] = []) {
        self.event = event
        self.errorEvent = errorEvent
        self.errors = errors
    }
}
