import Foundation
import CloudFunctions

/// One request of the per-token v1 topic API:
/// `POST /v1/projects/{p}/registrations/{token}/topicSubscriptions?topic_name={topic}` (subscribe)
/// and `DELETE .../registrations/{token}/topicSubscriptions/{topic}?allow_missing=true` (unsubscribe).
public struct FCMTopicSubscriptionRequest: Sendable, Hashable {
    /// The registration token, percent-decoded and checked.
    public var token: String
    /// The topic name, without `/topics/`, checked.
    public var topic: String
    /// Unsubscribe only: succeed when the subscription does not exist.
    public var allowMissing: Bool

    /// Creates a request from checked parts.
    public init(token: String, topic: String, allowMissing: Bool = false) {
        self.token = token
        self.topic = topic
        self.allowMissing = allowMissing
    }

    /// Reads a subscribe request.
    ///
    /// - Parameters:
    ///   - tokenSegment: the `{token}` path segment as it came (percent-encoded).
    ///   - query: the decoded query items; the topic is `topic_name` (or `topicName`).
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` (FCM details) for a malformed token, a missing
    ///   or malformed topic.
    public static func subscribe(tokenSegment: String, query: [String: String]) throws(ServiceError)
        -> FCMTopicSubscriptionRequest
    {
        let token = try checkedToken(tokenSegment)
        return FCMTopicSubscriptionRequest(token: token, topic: try topicName(fromQuery: query))
    }

    /// Reads an unsubscribe request.
    ///
    /// - Parameters:
    ///   - tokenSegment: the `{token}` path segment (percent-encoded).
    ///   - topicSegment: the `{topic}` path segment (percent-encoded).
    ///   - query: the decoded query items; `allow_missing` (or `allowMissing`) is `true`/`false`.
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` for a malformed token, topic or `allow_missing`.
    public static func unsubscribe(tokenSegment: String, topicSegment: String, query: [String: String])
        throws(ServiceError) -> FCMTopicSubscriptionRequest
    {
        let token = try checkedToken(tokenSegment)
        let topic = try FCMTopicName.validated(decoded(topicSegment), field: "topic")
        var allowMissing = false
        if let flag = query["allow_missing"] ?? query["allowMissing"] {
            switch flag.lowercased() {
            case "true": allowMissing = true
            case "false": allowMissing = false
            default:
                throw FCMErrorCode.invalidArgument(
                    "Invalid value at 'allow_missing' (TYPE_BOOL), \"\(flag)\"", field: "allow_missing")
            }
        }
        return FCMTopicSubscriptionRequest(token: token, topic: topic, allowMissing: allowMissing)
    }

    /// The topic named by `topic_name` (or `topicName`), without `/topics/`.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` when it is missing or malformed.
    public static func topicName(fromQuery query: [String: String]) throws(ServiceError) -> String {
        guard let raw = query["topic_name"] ?? query["topicName"], !raw.isEmpty else {
            throw FCMErrorCode.invalidArgument("Missing required parameter \"topic_name\".", field: "topic_name")
        }
        return try FCMTopicName.validated(raw, field: "topic_name")
    }

    private static func checkedToken(_ segment: String) throws(ServiceError) -> String {
        let token = decoded(segment)
        try FCMRegistrationToken.validate(token, field: "parent")
        return token
    }

    private static func decoded(_ segment: String) -> String {
        segment.removingPercentEncoding ?? segment
    }
}
