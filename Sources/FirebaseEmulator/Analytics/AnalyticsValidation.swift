import CloudFunctions
import Foundation

/// The Firebase Analytics rules for events, parameters and user properties.
///
/// Strict checks throw `ServiceError` `INVALID_ARGUMENT` with a message naming the field (the
/// emulator's validation mode); ``lenient(_:seenEventNames:)`` instead says what the device SDK
/// would do (drop, trim, and which `firebase_error` code it logs). Lengths are counted in UTF-16
/// code units, as the Android and Apple SDKs count string length.
package enum AnalyticsValidation {
    /// Longest event or parameter name.
    public static let maxNameLength = 40
    /// Longest user property name.
    public static let maxUserPropertyNameLength = 24
    /// Most parameters per event.
    public static let maxParameters = 25
    /// Longest string parameter value.
    public static let maxParameterValueLength = 100
    /// Longest user property value.
    public static let maxUserPropertyValueLength = 36
    /// Most distinct event names per app instance.
    public static let maxDistinctEventNames = 500
    /// Most user properties per project.
    public static let maxUserProperties = 25
    /// Reserved name prefixes.
    public static let reservedPrefixes = ["firebase_", "google_", "ga_"]

    /// Why a name breaks the naming rules, or `nil` when it is fine.
    ///
    /// - Parameters:
    ///   - name: an event, parameter or user property name.
    ///   - maxLength: the length limit.
    ///   - reserved: names that are reserved outright.
    public static func nameProblem(_ name: String, maxLength: Int, reserved: Set<String> = []) -> String? {
        let length = name.utf16.count
        guard (1...maxLength).contains(length) else { return "it must be 1 to \(maxLength) characters long" }
        let scalars = Array(name.unicodeScalars)
        guard let first = scalars.first, isASCIILetter(first),
            scalars.allSatisfy({ isASCIILetter($0) || ("0"..."9").contains($0) || $0 == "_" })
        else { return "it must start with a letter and contain only letters, digits and underscores" }
        if let prefix = reservedPrefixes.first(where: { name.hasPrefix($0) }) {
            return "the prefix \"\(prefix)\" is reserved"
        }
        if reserved.contains(name) { return "the name is reserved" }
        return nil
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// Checks an event name.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming `field`.
    public static func validateEventName(_ name: String, field: String = "name") throws(ServiceError) {
        if let problem = nameProblem(name, maxLength: maxNameLength, reserved: reservedEventNames) {
            throw ServiceError(.invalidArgument, "Invalid event name \"\(name)\" at '\(field)': \(problem).")
        }
    }

    /// Checks a parameter name.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming `field`.
    public static func validateParameterName(_ name: String, field: String) throws(ServiceError) {
        if let problem = nameProblem(name, maxLength: maxNameLength) {
            throw ServiceError(.invalidArgument, "Invalid parameter name \"\(name)\" at '\(field)': \(problem).")
        }
    }

    /// Checks a parameter value: a string of at most 100 characters or a finite number.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming `field`.
    public static func validateParameterValue(_ value: JSONValue, field: String) throws(ServiceError) {
        switch value {
        case .string(let text) where text.utf16.count > maxParameterValueLength:
            throw ServiceError(.invalidArgument, 
                "Parameter value too long at '\(field)': \(text.utf16.count) characters, the limit is "
                    + "\(maxParameterValueLength).")
        case .string:
            return
        case .number(let number) where number.isFinite:
            return
        default:
            throw ServiceError(.invalidArgument, 
                "Invalid parameter value at '\(field)': only strings, integers and doubles are allowed.")
        }
    }
}

extension AnalyticsValidation {
    /// Event names reserved for automatically collected events.
    public static let reservedEventNames: Set<String> = [
        "ad_activeview", "ad_click", "ad_exposure", "ad_query", "ad_reward", "adunit_exposure", "app_clear_data",
        "app_exception", "app_remove", "app_store_refund", "app_store_subscription_cancel",
        "app_store_subscription_convert", "app_store_subscription_renew", "app_update", "app_upgrade",
        "dynamic_link_app_open", "dynamic_link_app_update", "dynamic_link_first_open", "error", "firebase_campaign",
        "first_open", "first_visit", "in_app_purchase", "notification_dismiss", "notification_foreground",
        "notification_open", "notification_receive", "os_update", "session_start", "session_start_with_rollout",
        "user_engagement",
    ]

    /// User property names reserved by the SDK.
    public static let reservedUserPropertyNames: Set<String> = [
        "first_open_time", "first_visit_time", "last_deep_link_referrer", "user_id", "first_open_after_install",
    ]
}

extension AnalyticsValidation {
    /// What the device SDK does with `event` instead of rejecting it.
    ///
    /// An invalid name drops the event and yields an `error` event carrying `firebase_error` = 2
    /// and `firebase_error_value` = the name. Bad parameters are dropped (in name order); past 25
    /// the extras (last in name order) are dropped. The first parameter problem is recorded on the
    /// kept event as `firebase_error` / `firebase_error_value`. A new name past 500 distinct
    /// names drops the event silently.
    public static func lenient(_ event: AnalyticsEvent, seenEventNames: Set<String>) -> AnalyticsLenientResult {
        if nameProblem(event.name, maxLength: maxNameLength, reserved: reservedEventNames) != nil {
            let error = AnalyticsSDKError.invalidEventName(event.name)
            var errorEvent = event
            errorEvent.name = "error"
            errorEvent.params = ["firebase_error": .number(2), "firebase_error_value": .string(event.name)]
            return AnalyticsLenientResult(event: nil, errorEvent: errorEvent, errors: [error])
        }
        if !seenEventNames.contains(event.name), seenEventNames.count >= maxDistinctEventNames {
            return AnalyticsLenientResult(event: nil, errors: [.tooManyDistinctEventNames(event.name)])
        }
        var errors: [AnalyticsSDKError] = []
        var kept: [(String, JSONValue)] = []
        for name in event.params.keys.sorted() {
            guard let value = event.params[name] else { continue }
            if nameProblem(name, maxLength: maxNameLength) != nil {
                errors.append(.invalidParameterName(name))
            } else if case .string(let text) = value, text.utf16.count > maxParameterValueLength {
                errors.append(.parameterValueTooLong(name))
            } else if value.stringValue == nil, value.numberValue?.isFinite != true {
                errors.append(.unsupportedParameterValue(name))
            } else {
                kept.append((name, value))
            }
        }
        if kept.count > maxParameters {
            errors.append(.tooManyParameters(kept.count))
            kept.removeLast(kept.count - maxParameters)
        }
        var result = event
        result.params = Dictionary(kept, uniquingKeysWith: { first, _ in first })
        if let first = errors.first(where: { $0.firebaseErrorCode != nil }), let code = first.firebaseErrorCode {
            result.params["firebase_error"] = .number(Double(code))
            if let value = first.firebaseErrorValue { result.params["firebase_error_value"] = .string(value) }
        }
        return AnalyticsLenientResult(event: result, errors: errors)
    }

    /// What the SDK does with `setUserProperty(value, forName: name)`: `nil` when it is applied,
    /// else the error (code 6 or 7) for which it is ignored.
    public static func lenientUserProperty(name: String, value: String?) -> AnalyticsSDKError? {
        if nameProblem(name, maxLength: maxUserPropertyNameLength, reserved: reservedUserPropertyNames) != nil {
            return .invalidUserPropertyName(name)
        }
        if let value, value.utf16.count > maxUserPropertyValueLength { return .userPropertyValueTooLong(name) }
        return nil
    }
}

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
