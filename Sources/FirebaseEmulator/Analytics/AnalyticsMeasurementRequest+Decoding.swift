import Foundation
import CloudFunctions

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
