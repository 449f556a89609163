import Foundation
import CloudFunctions

/// A problem the device SDK tolerates: it drops or trims the input and, for the documented
/// cases, logs a `firebase_error` code.
package enum AnalyticsSDKError: Sendable, Hashable {
    /// Invalid or reserved event name: the event is dropped (code 2).
    case invalidEventName(String)
    /// Invalid parameter name: the parameter is dropped (code 3).
    case invalidParameterName(String)
    /// String parameter value over 100 characters: the parameter is dropped (code 4).
    case parameterValueTooLong(String)
    /// More than 25 parameters: the extras are dropped (code 5); carries the count given.
    case tooManyParameters(Int)
    /// Invalid user property name: the property is ignored (code 6).
    case invalidUserPropertyName(String)
    /// User property value over 36 characters: the property is ignored (code 7).
    case userPropertyValueTooLong(String)
    /// A parameter value that is not a string or number: dropped, no documented code.
    case unsupportedParameterValue(String)
    /// A new event name past the 500 distinct names: the event is dropped, no documented code.
    case tooManyDistinctEventNames(String)

    /// The `firebase_error` code the SDK logs, when documented.
    public var firebaseErrorCode: Int? {
        switch self {
        case .invalidEventName: 2
        case .invalidParameterName: 3
        case .parameterValueTooLong: 4
        case .tooManyParameters: 5
        case .invalidUserPropertyName: 6
        case .userPropertyValueTooLong: 7
        case .unsupportedParameterValue, .tooManyDistinctEventNames: nil
        }
    }

    /// The `firebase_error_value` the SDK logs with the code: the offending name.
    public var firebaseErrorValue: String? {
        switch self {
        case .invalidEventName(let name), .invalidParameterName(let name), .parameterValueTooLong(let name),
            .invalidUserPropertyName(let name), .userPropertyValueTooLong(let name):
            name
        case .tooManyParameters, .unsupportedParameterValue, .tooManyDistinctEventNames:
            nil
        }
    }
}
