import CloudFunctions
import Foundation

/// An error an emulated Firebase service answers with.
///
/// It carries what real clients parse: a ``Code`` (the Google canonical status such as
/// `INVALID_ARGUMENT` together with the HTTP status the REST layer answers with), and the
/// service's own message (for Auth the error code such as `EMAIL_EXISTS`, for the Realtime
/// Database the human sentence the REST API returns). `details` holds service-specific extras,
/// such as the FCM `errorCode`.
public struct ServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Google canonical status and the HTTP status that goes with it, as one value.
    public struct Code: Sendable, Hashable {
        /// The Google canonical status name, e.g. `INVALID_ARGUMENT`.
        public let status: String
        /// The HTTP status code the REST layer answers with.
        public let httpStatus: Int

        init(_ status: String, _ httpStatus: Int) {
            self.status = status
            self.httpStatus = httpStatus
        }

        /// 400 `INVALID_ARGUMENT`.
        public static let invalidArgument = Code("INVALID_ARGUMENT", 400)
        /// 400 `FAILED_PRECONDITION`.
        public static let failedPrecondition = Code("FAILED_PRECONDITION", 400)
        /// 401 `UNAUTHENTICATED`.
        public static let unauthenticated = Code("UNAUTHENTICATED", 401)
        /// 403 `PERMISSION_DENIED`.
        public static let permissionDenied = Code("PERMISSION_DENIED", 403)
        /// 401 `PERMISSION_DENIED`: the Realtime Database's answer when rules refuse.
        public static let permissionDeniedByRules = Code("PERMISSION_DENIED", 401)
        /// 404 `NOT_FOUND`.
        public static let notFound = Code("NOT_FOUND", 404)
        /// 405 for an HTTP method a route does not take.
        public static let methodNotAllowed = Code("METHOD_NOT_ALLOWED", 405)
        /// 409 `ALREADY_EXISTS`.
        public static let alreadyExists = Code("ALREADY_EXISTS", 409)
        /// 409 `ABORTED`, e.g. a version mismatch.
        public static let aborted = Code("ABORTED", 409)
        /// 412 `FAILED_PRECONDITION`: an `If-Match` that does not match.
        public static let preconditionFailed = Code("FAILED_PRECONDITION", 412)
        /// 413 `RESOURCE_EXHAUSTED`: a request body over the limit.
        public static let payloadTooLarge = Code("RESOURCE_EXHAUSTED", 413)
        /// 415 `INVALID_ARGUMENT`: a body of a type the route does not read.
        public static let unsupportedMediaType = Code("INVALID_ARGUMENT", 415)
        /// 429 `RESOURCE_EXHAUSTED`: a quota or rate limit.
        public static let resourceExhausted = Code("RESOURCE_EXHAUSTED", 429)
        /// 500 `INTERNAL`.
        public static let `internal` = Code("INTERNAL", 500)
        /// 500 `UNKNOWN`.
        public static let unknown = Code("UNKNOWN", 500)
        /// 503 `UNAVAILABLE`.
        public static let unavailable = Code("UNAVAILABLE", 503)
    }

    /// The status pair.
    public var code: Code
    /// The message, exactly as the real service words it.
    public var message: String
    /// Service-specific details, rendered into the error body by the REST layer.
    public var details: JSONValue?

    /// Creates an error.
    public init(_ code: Code, _ message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// The Google canonical status name, e.g. `INVALID_ARGUMENT`.
    public var status: String { code.status }
    /// The HTTP status code the REST layer answers with.
    public var httpStatus: Int { code.httpStatus }

    public var description: String { "\(status): \(message)" }
}
