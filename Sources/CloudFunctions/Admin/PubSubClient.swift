import Foundation

/// Publishing to Pub/Sub topics from a handler.
public protocol PubSubClient: Sendable {
    /// Publishes `messages` to `topic` (its short name).
    ///
    /// - Returns: the message ids Pub/Sub gave them, in order: one per message.
    func publish(_ messages: [PubSubOutgoingMessage], to topic: String) async throws -> [String]
}

extension PubSubClient {
    /// Publishes one message; its id.
    @discardableResult
    public func publish(_ message: PubSubOutgoingMessage, to topic: String) async throws -> String {
        try await publish([message], to: topic).first ?? ""
    }

    /// Publishes `value` as JSON; the message's id.
    @discardableResult
    public func publish(json value: some Encodable, attributes: [String: String] = [:], to topic: String) async throws
        -> String
    {
        try await publish(PubSubOutgoingMessage(data: try JSONEncoder().encode(value), attributes: attributes), to: topic)
    }
}

/// A message to publish.
public struct PubSubOutgoingMessage: Sendable, Hashable {
    public var data: Data
    public var attributes: [String: String]
    public var orderingKey: String?

    /// Creates a message; Pub/Sub refuses one with neither data nor attributes.
    public init(data: Data, attributes: [String: String] = [:], orderingKey: String? = nil) {
        self.data = data
        self.attributes = attributes
        self.orderingKey = orderingKey
    }
}
