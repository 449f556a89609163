import Foundation
import CloudFunctions

extension AnalyticsValidation {
    /// Checks a whole event: name, the distinct-name limit, parameter count, names and values.
    ///
    /// - Parameters:
    ///   - event: the event.
    ///   - seenEventNames: the distinct event names this app instance already logged.
    ///   - field: the event's place in the request, e.g. `events[0]`.
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming the field at fault.
    public static func validate(_ event: AnalyticsEvent, seenEventNames: Set<String>, field: String = "event")
        throws(ServiceError)
    {
        try validateEventName(event.name, field: "\(field).name")
        if !seenEventNames.contains(event.name), seenEventNames.count >= maxDistinctEventNames {
            throw ServiceError(.invalidArgument, 
                "Too many distinct event names at '\(field).name': an app instance may log at most "
                    + "\(maxDistinctEventNames).")
        }
        try validateParameters(event.params, field: "\(field).params")
    }

    /// Checks an event's parameters.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming the field at fault.
    public static func validateParameters(_ params: [String: JSONValue], field: String) throws(ServiceError) {
        guard params.count <= maxParameters else {
            throw ServiceError(.invalidArgument, 
                "Too many parameters at '\(field)': \(params.count), the limit is \(maxParameters).")
        }
        for name in params.keys.sorted() {
            try validateParameterName(name, field: "\(field).\(name)")
            if let value = params[name] { try validateParameterValue(value, field: "\(field).\(name)") }
        }
    }

    /// Checks a user property; a `nil` value clears the property and is always allowed.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming `field`.
    public static func validateUserProperty(name: String, value: String?, field: String = "user_properties")
        throws(ServiceError)
    {
        if let problem = nameProblem(name, maxLength: maxUserPropertyNameLength, reserved: reservedUserPropertyNames) {
            throw ServiceError(.invalidArgument, "Invalid user property name \"\(name)\" at '\(field)': \(problem).")
        }
        if let value, value.utf16.count > maxUserPropertyValueLength {
            throw ServiceError(.invalidArgument, 
                "User property value too long at '\(field).\(name)': \(value.utf16.count) characters, the limit is "
                    + "\(maxUserPropertyValueLength).")
        }
    }

    /// Checks a set of user properties against the per-project limit of 25 names.
    ///
    /// - Parameters:
    ///   - properties: name → value (`nil` clears).
    ///   - existingNames: the user property names the project already has.
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming the field at fault.
    public static func validateUserProperties(
        _ properties: [String: String?], existingNames: Set<String> = [], field: String = "user_properties"
    ) throws(ServiceError) {
        for name in properties.keys.sorted() {
            try validateUserProperty(name: name, value: properties[name] ?? nil, field: field)
        }
        let names = existingNames.union(properties.compactMap { $0.value == nil ? nil : $0.key })
        guard names.count <= maxUserProperties else {
            throw ServiceError(.invalidArgument, 
                "Too many user properties at '\(field)': \(names.count), the limit is \(maxUserProperties) "
                    + "per project.")
        }
    }
}
