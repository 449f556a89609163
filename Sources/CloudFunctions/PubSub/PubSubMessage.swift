import CloudEvents
import Foundation

/// A Pub/Sub message as a function receives it.
///
/// It reads the message both as Eventarc writes it (`messageId`, `publishTime`) and with the
/// snake-case duplicates the Pub/Sub wire also carries (`message_id`, `publish_time`).
public struct PubSubMessage: Sendable, Hashable {
    /// The payload.
    public var data: Data
    /// The attributes the publisher set.
    public var attributes: [String: String]
    /// The id Pub/Sub gave the message; a redelivery keeps it.
    public var messageId: String
    /// When Pub/Sub received it.
    public var publishTime: Date
    /// The ordering key, when the publisher set one.
    public var orderingKey: String?

    /// Creates a message.
    public init(
        data: Data, attributes: [String: String] = [:], messageId: String, publishTime: Date = Date(),
        orderingKey: String? = nil
    ) {
        self.data = data
        self.attributes = attributes
        self.messageId = messageId
        self.publishTime = publishTime
        self.orderingKey = orderingKey
    }

    /// The payload as UTF-8 text, when it is.
    public var text: String? { String(data: data, encoding: .utf8) }

    /// The payload decoded from JSON as `T`.
    ///
    /// - Throws: `DecodingError` when it is not JSON of that shape.
    public func json<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: data)
    }
}

extension PubSubMessage: Codable {
    private enum CodingKeys: String, CodingKey {
        case data, attributes, messageId, publishTime, orderingKey
        case snakeMessageId = "message_id", snakePublishTime = "publish_time"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let base64 = try container.decodeIfPresent(String.self, forKey: .data) ?? ""
        guard let data = Data(base64Encoded: base64) else {
            throw DecodingError.dataCorruptedError(forKey: .data, in: container, debugDescription: "data is not base64")
        }
        self.data = data
        attributes = try container.decodeIfPresent([String: String].self, forKey: .attributes) ?? [:]
        guard let id = try container.decodeIfPresent(String.self, forKey: .messageId)
            ?? container.decodeIfPresent(String.self, forKey: .snakeMessageId)
        else {
            throw DecodingError.keyNotFound(CodingKeys.messageId, .init(codingPath: container.codingPath,
                debugDescription: "a Pub/Sub message has a messageId"))
        }
        messageId = id
        let time = try container.decodeIfPresent(String.self, forKey: .publishTime)
            ?? container.decodeIfPresent(String.self, forKey: .snakePublishTime)
        guard let time, let publishTime = RFC3339Timestamp.date(from: time) else {
            throw DecodingError.dataCorruptedError(forKey: .publishTime, in: container,
                debugDescription: "publishTime is missing or not an RFC 3339 timestamp")
        }
        self.publishTime = publishTime
        orderingKey = try container.decodeIfPresent(String.self, forKey: .orderingKey).flatMap { $0.isEmpty ? nil : $0 }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(data.base64EncodedString(), forKey: .data)
        if !attributes.isEmpty { try container.encode(attributes, forKey: .attributes) }
        try container.encode(messageId, forKey: .messageId)
        try container.encode(RFC3339Timestamp.string(from: publishTime), forKey: .publishTime)
        try container.encodeIfPresent(orderingKey, forKey: .orderingKey)
    }
}
