import Foundation
import CloudFunctions

/// The body of the Instance ID `iid/v1:batchAdd` / `:batchRemove` requests:
/// `{"to": "/topics/news", "registration_tokens": [...]}`.
public struct FCMTopicBatchRequest: Sendable, Hashable {
    /// The most tokens one request may carry.
    public static let maxTokens = 1000

    /// The topic name, without `/topics/`.
    public var topic: String
    /// The registration tokens, in request order.
    public var registrationTokens: [String]

    /// Creates a request.
    public init(topic: String, registrationTokens: [String]) {
        self.topic = FCMTopicName.stripPrefix(topic)
        self.registrationTokens = registrationTokens
    }

    /// Decodes and checks a request body (`registration_tokens` or `registrationTokens`).
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` when `to` is missing or not a valid topic, or
    ///   when the token list is missing, empty, longer than 1000 or holds a non-string. Per-token
    ///   format problems are not request errors: see ``outcomeForMalformedToken(_:)``.
    public static func parse(_ json: JSONValue) throws(ServiceError) -> FCMTopicBatchRequest {
        guard case .object(let body) = json else {
            throw ServiceError(.invalidArgument, "Request body must be an object.")
        }
        guard case .string(let to)? = body["to"] else {
            throw ServiceError(.invalidArgument, "Missing \"to\": the topic, e.g. \"/topics/news\".")
        }
        let topic = FCMTopicName.stripPrefix(to)
        guard FCMTopicName.isValid(topic) else { throw ServiceError(.invalidArgument, "Invalid topic name \"\(to)\".") }
        guard case .array(let list)? = body["registration_tokens"] ?? body["registrationTokens"], !list.isEmpty else {
            throw ServiceError(.invalidArgument, "Missing \"registration_tokens\": at least one token is required.")
        }
        guard list.count <= maxTokens else {
            throw ServiceError(.invalidArgument, 
                "Too many registration tokens: \(list.count), the limit is \(maxTokens).")
        }
        var tokens: [String] = []
        tokens.reserveCapacity(list.count)
        for element in list {
            guard case .string(let token) = element else {
                throw ServiceError(.invalidArgument, "Registration tokens must be strings.")
            }
            tokens.append(token)
        }
        return FCMTopicBatchRequest(topic: topic, registrationTokens: tokens)
    }

    /// `.failure(.invalidArgument)` when the token is malformed, else `nil`.
    package static func outcomeForMalformedToken(_ token: String) -> FCMTopicOutcome? {
        FCMRegistrationToken.isWellFormed(token) ? nil : .failure(.invalidArgument)
    }

    /// The whole-request error body IID answers with: `{"error": "INVALID_ARGUMENT"}`.
    public static func errorBody(for error: ServiceError) -> JSONValue {
        ["error": .string(error.status)]
    }
}
