import Foundation
import CloudFunctions

/// An in-memory two-way index of topic subscriptions: topic → tokens and token → topics.
///
/// Both directions are hash sets, so subscribing, unsubscribing and the membership tests of
/// fan-out are O(1); ``tokens(forTopic:)`` hands out the stored set without copying.
package struct FCMTopicIndex: Sendable, Hashable {
    /// The most topics one app instance (token) may be subscribed to.
    public static let maxTopicsPerToken = 2000

    /// Topic name → subscribed tokens. Topics without subscribers are absent.
    public private(set) var subscribers: [String: Set<String>] = [:]
    /// Token → topics it is subscribed to. Tokens without subscriptions are absent.
    public private(set) var subscriptions: [String: Set<String>] = [:]

    /// Creates an empty index.
    public init() {}

    /// Subscribes `token` to `topic` (names already checked, topic without `/topics/`).
    ///
    /// - Returns: `.success` (also when already subscribed) or `.failure(.tooManyTopics)` when
    ///   the token already has ``maxTopicsPerToken`` topics.
    @discardableResult
    public mutating func subscribe(token: String, to topic: String) -> FCMTopicOutcome {
        if subscriptions[token]?.contains(topic) == true { return .success }
        if let count = subscriptions[token]?.count, count >= Self.maxTopicsPerToken {
            return .failure(.tooManyTopics)
        }
        subscriptions[token, default: []].insert(topic)
        subscribers[topic, default: []].insert(token)
        return .success
    }

    /// Subscribes each token to `topic`; outcomes are index-aligned with `tokens`.
    public mutating func subscribe(tokens: [String], to topic: String) -> [FCMTopicOutcome] {
        tokens.map { subscribe(token: $0, to: topic) }
    }

    /// Unsubscribes `token` from `topic`.
    ///
    /// - Returns: whether the subscription existed.
    @discardableResult
    public mutating func unsubscribe(token: String, from topic: String) -> Bool {
        guard subscriptions[token]?.remove(topic) != nil else { return false }
        if subscriptions[token]?.isEmpty == true { subscriptions[token] = nil }
        subscribers[topic]?.remove(token)
        if subscribers[topic]?.isEmpty == true { subscribers[topic] = nil }
        return true
    }

    /// Unsubscribes each token from `topic`; `true` where a subscription existed.
    public mutating func unsubscribe(tokens: [String], from topic: String) -> [Bool] {
        tokens.map { unsubscribe(token: $0, from: topic) }
    }

    /// Drops every subscription of `token` (e.g. when it is deleted or unregistered).
    ///
    /// - Returns: the topics it was subscribed to.
    @discardableResult
    public mutating func removeToken(_ token: String) -> Set<String> {
        guard let topics = subscriptions.removeValue(forKey: token) else { return [] }
        for topic in topics {
            subscribers[topic]?.remove(token)
            if subscribers[topic]?.isEmpty == true { subscribers[topic] = nil }
        }
        return topics
    }

    /// The topics `token` is subscribed to.
    public func topics(forToken token: String) -> Set<String> {
        subscriptions[token] ?? []
    }

    /// The tokens subscribed to `topic` (the stored set, not a copy).
    public func tokens(forTopic topic: String) -> Set<String> {
        subscribers[FCMTopicName.stripPrefix(topic)] ?? []
    }

    /// How many tokens are subscribed to `topic`.
    public func subscriberCount(forTopic topic: String) -> Int {
        subscribers[FCMTopicName.stripPrefix(topic)]?.count ?? 0
    }
}
