import CloudFunctions
import Foundation

/// An error an emulated Firebase service answers with.
///
/// It carries what real clients parse: the Google canonical status (`INVALID_ARGUMENT`,
/// `NOT_FOUND`, ...), the HTTP status the REST layer answers with, and the service's own
/// message (for Auth the error code such as `EMAIL_EXISTS`, for the Realtime Database the
/// human sentence the REST API returns). `details` holds service-specific extras, such as
/// the FCM `errorCode`.
public struct ServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Google canonical status name, e.g. `INVALID_ARGUMENT`.
    public var status: String
    /// The HTTP status code the REST layer answers with.
    public var httpStatus: Int
    /// The message, exactly as the real service words it.
    public var message: String
    /// Service-specific details, rendered into the error body by the REST layer.
    public var details: JSONValue?

    /// Creates an error from its parts.
    public init(status: String, httpStatus: Int, message: String, details: JSONValue? = nil) {
        self.status = status
        self.httpStatus = httpStatus
        self.message = message
        self.details = details
    }

    public var description: String { "\(status): \(message)" }

    /// 400 `INVALID_ARGUMENT`.
    public static func invalidArgument(_ message: String, details: JSONValue? = nil) -> ServiceError {
        ServiceError(status: "INVALID_ARGUMENT", httpStatus: 400, message: message, details: details)
    }

    /// 400 `FAILED_PRECONDITION`.
    public static func failedPrecondition(_ message: String, details: JSONValue? = nil) -> ServiceError {
        ServiceError(status: "FAILED_PRECONDITION", httpStatus: 400, message: message, details: details)
    }

    /// 404 `NOT_FOUND`.
    public static func notFound(_ message: String, details: JSONValue? = nil) -> ServiceError {
        ServiceError(status: "NOT_FOUND", httpStatus: 404, message: message, details: details)
    }

    /// 409 `ALREADY_EXISTS`.
    public static func alreadyExists(_ message: String, details: JSONValue? = nil) -> ServiceError {
        ServiceError(status: "ALREADY_EXISTS", httpStatus: 409, message: message, details: details)
    }

    /// 409 `ABORTED`, e.g. a version mismatch.
    public static func aborted(_ message: String, details: JSONValue? = nil) -> ServiceError {
        ServiceError(status: "ABORTED", httpStatus: 409, message: message, details: details)
    }

    /// 403 `PERMISSION_DENIED`.
    public static func permissionDenied(_ message: String, details: JSONValue? = nil) -> ServiceError {
        ServiceError(status: "PERMISSION_DENIED", httpStatus: 403, message: message, details: details)
    }

    /// 429 `RESOURCE_EXHAUSTED`.
    public static func resourceExhausted(_ message: String, details: JSONValue? = nil) -> ServiceError {
        ServiceError(status: "RESOURCE_EXHAUSTED", httpStatus: 429, message: message, details: details)
    }
}
