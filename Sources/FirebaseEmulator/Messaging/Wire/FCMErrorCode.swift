import Foundation
import CloudFunctions

/// An FCM HTTP v1 `FcmError.errorCode`, carried in the `details` of every FCM error body.
package enum FCMErrorCode: String, Sendable, Hashable, CaseIterable {
    /// No more information is available about the error.
    case unspecifiedError = "UNSPECIFIED_ERROR"
    /// A request parameter was invalid (400).
    case invalidArgument = "INVALID_ARGUMENT"
    /// The app instance was unregistered from FCM (404).
    case unregistered = "UNREGISTERED"
    /// The sender is not allowed to send to this registration token (403).
    case senderIDMismatch = "SENDER_ID_MISMATCH"
    /// The sending limit was exceeded (429).
    case quotaExceeded = "QUOTA_EXCEEDED"
    /// The server is overloaded (503).
    case unavailable = "UNAVAILABLE"
    /// An unknown internal error occurred (500).
    case `internal` = "INTERNAL"
    /// The APNs certificate or web push auth key was invalid or missing (401).
    case thirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"

    /// The `@type` of the FCM error detail.
    public static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    /// The `@type` of the field-violation detail.
    public static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// The canonical status pair FCM answers this code with.
    public var code: ServiceError.Code {
        switch self {
        case .unspecifiedError: .unknown
        case .invalidArgument: .invalidArgument
        case .unregistered: .notFound
        case .senderIDMismatch: .permissionDenied
        case .quotaExceeded: .resourceExhausted
        case .unavailable: .unavailable
        case .internal: .internal
        case .thirdPartyAuthError: .unauthenticated
        }
    }

    /// Builds the `ServiceError` FCM answers with: an `FcmError` detail and, when `field` is
    /// given, a `BadRequest` detail with one field violation.
    ///
    /// - Parameters:
    ///   - message: the error message.
    ///   - field: the request field at fault, e.g. `message.data[0].value`.
    ///   - description: the violation description; defaults to `message`.
    public func serviceError(_ message: String, field: String? = nil, description: String? = nil) -> ServiceError {
        var details: [JSONValue] = [["@type": .string(Self.fcmErrorType), "errorCode": .string(rawValue)]]
        if let field {
            let violation: JSONValue = ["field": .string(field), "description": .string(description ?? message)]
            details.append(["@type": .string(Self.badRequestType), "fieldViolations": [violation]])
        }
        return ServiceError(code, message, details: .array(details))
    }

    /// The FCM `INVALID_ARGUMENT` error, optionally naming the field at fault.
    public static func invalidArgument(_ message: String, field: String? = nil) -> ServiceError {
        FCMErrorCode.invalidArgument.serviceError(message, field: field)
    }
}
