import CloudFunctions
import Foundation

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

extension AnalyticsMeasurementRequest {
    /// Decodes a request body.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming the field with the wrong shape.
    public static func parse(_ json: JSONValue) throws(ServiceError) -> AnalyticsMeasurementRequest {
        guard case .object(let body) = json else {
            throw ServiceError(.invalidArgument, "Request body must be an object.")
        }
        guard case .string(let appInstanceId)? = body["app_instance_id"] else {
            throw ServiceError(.invalidArgument, "Missing or invalid 'app_instance_id': expected a string.")
        }
        let userId = try optionalString(body["user_id"], field: "user_id")
        let timestamp = try micros(body["timestamp_micros"], field: "timestamp_micros")
        var properties: [String: JSONValue] = [:]
        if let raw = body["user_properties"], !raw.isNull {
            guard case .object(let members) = raw else {
                throw ServiceError(.invalidArgument, "Invalid 'user_properties': expected an object.")
            }
            for (name, entry) in members {
                guard case .object(let fields) = entry else {
                    throw ServiceError(.invalidArgument,
                        "Invalid 'user_properties.\(name)': expected {\"value\": ...}.")
                }
                properties[name] = fields["value"] ?? .null
            }
        }
        guard case .array(let list)? = body["events"] else {
            throw ServiceError(.invalidArgument, "Missing or invalid 'events': expected an array.")
        }
        var events: [AnalyticsMeasurementEvent] = []
        for (index, element) in list.enumerated() {
            let field = "events[\(index)]"
            guard case .object(let fields) = element, case .string(let name)? = fields["name"] else {
                throw ServiceError(.invalidArgument, 
                    "Invalid '\(field)': expected {\"name\": string, \"params\": {...}}.")
            }
            var params: [String: JSONValue] = [:]
            if let raw = fields["params"], !raw.isNull {
                guard case .object(let members) = raw else {
                    throw ServiceError(.invalidArgument, "Invalid '\(field).params': expected an object.")
                }
                params = members
            }
            let eventMicros = try micros(fields["timestamp_micros"], field: "\(field).timestamp_micros")
            events.append(AnalyticsMeasurementEvent(name: name, params: params, timestampMicros: eventMicros))
        }
        return AnalyticsMeasurementRequest(
            appInstanceId: appInstanceId, userId: userId, timestampMicros: timestamp, userProperties: properties,
            events: events)
    }

    private static func optionalString(_ value: JSONValue?, field: String) throws(ServiceError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw ServiceError(.invalidArgument, "Invalid '\(field)': expected a string.")
        }
    }

    private static func micros(_ value: JSONValue?, field: String) throws(ServiceError) -> Int64? {
        switch value {
        case nil, .null?:
            return nil
        case .number(let number)?:
            guard number.isFinite, number.rounded() == number, abs(number) < 9.2e18 else { break }
            return Int64(number)
        case .string(let text)?:
            if let integer = Int64(text) { return integer }
        default:
            break
        }
        throw ServiceError(.invalidArgument, "Invalid '\(field)': expected an integer number of microseconds.")
    }
}

extension AnalyticsMeasurementRequest: Decodable {
    /// Decodes through ``parse(_:)``; errors are `ServiceError`.
    public init(from decoder: any Decoder) throws {
        self = try AnalyticsMeasurementRequest.parse(JSONValue(from: decoder))
    }
}
