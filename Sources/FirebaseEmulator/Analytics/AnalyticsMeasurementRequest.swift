import Foundation
import CloudFunctions

/// A GA4 Measurement Protocol (app stream) request body:
/// `{"app_instance_id", "user_id"?, "timestamp_micros"?, "user_properties"?: {name: {"value"}},
/// "events": [{"name", "params"}]}`.
///
/// Unknown top-level fields are ignored, as Measurement Protocol does. Integers may be sent as
/// JSON numbers or decimal strings.
public struct AnalyticsMeasurementRequest: Sendable, Hashable {
    /// Most events per request.
    public static let maxEvents = 25

    /// The app instance id: 32 hexadecimal digits.
    public var appInstanceId: String
    /// The user id, if any.
    public var userId: String?
    /// The request timestamp in microseconds since 1970, if given.
    public var timestampMicros: Int64?
    /// User properties: name → value; `.null` clears the property.
    public var userProperties: [String: JSONValue]
    /// The events, in request order.
    package var events: [AnalyticsMeasurementEvent]

    /// Creates a request.
    package init(
        appInstanceId: String, userId: String? = nil, timestampMicros: Int64? = nil,
        userProperties: [String: JSONValue] = [:], events: [AnalyticsMeasurementEvent]
    ) {
        self.appInstanceId = appInstanceId
        self.userId = userId
        self.timestampMicros = timestampMicros
        self.userProperties = userProperties
        self.events = events
    }

    /// Whether `id` is 32 hexadecimal digits.
    public static func isValidAppInstanceID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.allSatisfy(\.isHexDigit)
    }

    /// The events as ``AnalyticsEvent`` values. An event's own timestamp wins over the request's,
    /// which wins over `receivedAt`.
    public func analyticsEvents(receivedAt: Date) -> [AnalyticsEvent] {
        events.map { event in
            let micros = event.timestampMicros ?? timestampMicros
            let timestamp = micros.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) } ?? receivedAt
            return AnalyticsEvent(
                name: event.name, params: event.params, timestamp: timestamp, appInstanceId: appInstanceId,
                userId: userId)
        }
    }

    /// Applies the strict rules: the app instance id, 1 to 25 events, each event's rules (with the
    /// distinct-name limit counting names earlier in the request), and the user properties.
    ///
    /// - Parameter seenEventNames: the distinct event names the app instance already logged.
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming the field at fault.
    public func validate(seenEventNames: Set<String> = []) throws(ServiceError) {
        guard Self.isValidAppInstanceID(appInstanceId) else {
            throw ServiceError(.invalidArgument,
                "Invalid app_instance_id \"\(appInstanceId)\": expected 32 hex digits.")
        }
        guard (1...Self.maxEvents).contains(events.count) else {
            throw ServiceError(.invalidArgument, 
                "Invalid events: a request carries 1 to \(Self.maxEvents) events, got \(events.count).")
        }
        var seen = seenEventNames
        for (index, event) in events.enumerated() {
            let value = AnalyticsEvent(
                name: event.name, params: event.params, timestamp: Date(timeIntervalSince1970: 0),
                appInstanceId: appInstanceId)
            try AnalyticsValidation.validate(value, seenEventNames: seen, field: "events[\(index)]")
            seen.insert(event.name)
        }
        for name in userProperties.keys.sorted() {
            let text: String?
            switch userProperties[name] ?? .null {
            case .null: text = nil
            case .string(let string): text = string
            case .number(let number): text = JSONValue.number(number).serialized()
            default:
                throw ServiceError(.invalidArgument, 
                    "Invalid user property value at 'user_properties.\(name).value': expected a string or number.")
            }
            try AnalyticsValidation.validateUserProperty(name: name, value: text, field: "user_properties")
        }
    }
}
