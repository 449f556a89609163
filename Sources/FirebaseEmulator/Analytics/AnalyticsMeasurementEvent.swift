import Foundation
import CloudFunctions

/// One event of a Measurement Protocol request.
package struct AnalyticsMeasurementEvent: Sendable, Hashable {
    /// The event name.
    public var name: String
    /// The parameters.
    public var params: [String: JSONValue]
    /// The event's own timestamp in microseconds since 1970, if given.
    public var timestampMicros: Int64?

    /// Creates an event.
    public init(name: String, params: [String: JSONValue] = [:], timestampMicros: Int64? = nil) {
        self.name = name
        self.params = params
        self.timestampMicros = timestampMicros
    }
}
