import Foundation
import CloudFunctions

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
