/// The data of a `google.cloud.pubsub.topic.v1.messagePublished` event: the message and the
/// subscription that delivered it.
public struct MessagePublishedData: Sendable, Hashable, Codable {
    /// The message.
    public var message: PubSubMessage
    /// The subscription's resource name, `projects/{project}/subscriptions/{name}`.
    public var subscription: String
}
