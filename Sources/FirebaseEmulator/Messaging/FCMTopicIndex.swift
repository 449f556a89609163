import CloudFunctions
import Foundation

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

extension FCMTopicIndex {
    /// The tokens whose subscriptions satisfy `condition`.
    ///
    /// Candidates are the union of the subscribers of the condition's topics; each candidate is
    /// visited once: its topic set is looked up once, turned into a bit mask over the (≤ 5)
    /// condition topics and checked against the condition's truth table. A condition that is a
    /// single plain topic returns that topic's stored set. When the condition holds for a
    /// device with none of its topics (possible only with `!`), every indexed token that has none
    /// of them matches too; tokens with no subscriptions at all are not in the index (the
    /// messaging service adds the registered ones).
    public func tokens(forCondition condition: FCMTopicCondition) -> Set<String> {
        let topics = condition.topics
        let table = condition.truthTable
        guard !table.isEmpty else { return tokensByDirectEvaluation(condition) }
        for (bit, topic) in topics.enumerated()
        where table.indices.allSatisfy({ table[$0] == ($0 & (1 << bit) != 0) }) {
            return subscribers[topic] ?? []
        }
        var result = Set<String>()
        for (bit, topic) in topics.enumerated() {
            let alreadySeen = (1 << bit) - 1
            for token in subscribers[topic] ?? [] {
                guard let mine = subscriptions[token] else { continue }
                let mask = Self.mask(of: mine, over: topics)
                if mask & alreadySeen == 0, table[mask] { result.insert(token) }
            }
        }
        if table[0] {
            for (token, mine) in subscriptions where Self.mask(of: mine, over: topics) == 0 {
                result.insert(token)
            }
        }
        return result
    }

    /// The slow path for conditions built in code with more than 5 topics: every indexed token
    /// is evaluated.
    private func tokensByDirectEvaluation(_ condition: FCMTopicCondition) -> Set<String> {
        Set(subscriptions.lazy.filter { condition.evaluate(subscribedTo: $0.value) }.map(\.key))
    }

    /// Bit `i` is set when `topicsOfToken` contains `topics[i]`.
    private static func mask(of topicsOfToken: Set<String>, over topics: [String]) -> Int {
        var mask = 0
        for (bit, topic) in topics.enumerated() where topicsOfToken.contains(topic) { mask |= 1 << bit }
        return mask
    }
}
