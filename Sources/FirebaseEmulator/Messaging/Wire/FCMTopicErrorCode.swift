import CloudFunctions
import Foundation

/// The Instance ID topic management errors the emulator gives for one token: the `error` of
/// its entry in a batch answer, or the error of the per-token v1 call.
public enum FCMTopicErrorCode: String, Sendable, Hashable, CaseIterable {
    /// The registration token is unknown or was deleted.
    case notFound = "NOT_FOUND"
    /// The token or topic is malformed.
    case invalidArgument = "INVALID_ARGUMENT"
    /// The app instance already has the maximum number of topics (2000).
    case tooManyTopics = "TOO_MANY_TOPICS"

    /// The `ServiceError` the per-token v1 API answers with for this code.
    package var serviceError: ServiceError {
        switch self {
        case .notFound:
            FCMErrorCode.unregistered.serviceError("Requested entity was not found.")
        case .invalidArgument:
            FCMErrorCode.invalidArgument(FCMRegistrationToken.invalidMessage)
        case .tooManyTopics:
            ServiceError(.resourceExhausted, "TOO_MANY_TOPICS: an app instance can subscribe to at most 2000 topics.")
        }
    }
}
