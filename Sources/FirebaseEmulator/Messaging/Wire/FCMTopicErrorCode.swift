import Foundation
import CloudFunctions

/// Error codes of the Instance ID topic management API.
package enum FCMTopicErrorCode: String, Sendable, Hashable, CaseIterable {
    /// The registration token is unknown or was deleted.
    case notFound = "NOT_FOUND"
    /// The token or topic is malformed.
    case invalidArgument = "INVALID_ARGUMENT"
    /// The app instance already has the maximum number of topics (2000).
    case tooManyTopics = "TOO_MANY_TOPICS"
    /// The subscription rate limit was exceeded.
    case resourceExhausted = "RESOURCE_EXHAUSTED"
    /// The caller may not manage this token's subscriptions.
    case permissionDenied = "PERMISSION_DENIED"
    /// The request timed out.
    case deadlineExceeded = "DEADLINE_EXCEEDED"
    /// An internal error.
    case `internal` = "INTERNAL"
    /// An unknown error.
    case unknown = "UNKNOWN"

    /// The `ServiceError` the per-token v1 API answers with for this code.
    public var serviceError: ServiceError {
        switch self {
        case .notFound:
            FCMErrorCode.unregistered.serviceError("Requested entity was not found.")
        case .invalidArgument:
            FCMErrorCode.invalidArgument(FCMRegistrationToken.invalidMessage)
        case .tooManyTopics:
            ServiceError(.resourceExhausted, "TOO_MANY_TOPICS: an app instance can subscribe to at most 2000 topics.")
        case .resourceExhausted:
            ServiceError(.resourceExhausted, "Topic subscription quota exceeded.")
        case .permissionDenied:
            ServiceError(.permissionDenied, "The caller does not have permission")
        case .deadlineExceeded:
            ServiceError(.deadlineExceeded, "Deadline exceeded.")
        case .internal:
            ServiceError(.internal, "Internal error encountered.")
        case .unknown:
            ServiceError(.unknown, "Unknown error.")
        }
    }
}
