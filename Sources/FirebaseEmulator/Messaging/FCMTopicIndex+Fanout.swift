import Foundation
import CloudFunctions

extension FCMTopicIndex {
    /// The tokens whose subscriptions satisfy `condition`.
    ///
    /// Candidates are the union of the subscribers of the condition's topics; each candidate is
    /// visited once: its topic set is looked up once, turned into a bit mask over the (≤ 5)
    /// condition topics and checked against the condition's truth table. A condition that is a
    /// single plain topic returns that topic's stored set. When the condition holds for a
    /// device with none of its topics (possible only with `!`), every indexed token that has none
    /// of them matches too; tokens with no subscriptions at all are not in the index.
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

    /// The tokens a message target reaches: the token itself, a topic's subscribers, or the
    /// tokens matching a condition.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` when a condition does not parse.
    public func tokens(for target: Message.Target, grouping: FCMTopicCondition.Grouping = .leftToRight)
        throws(ServiceError) -> Set<String>
    {
        switch target {
        case .token(let token): return [token]
        case .topic(let topic): return tokens(forTopic: topic)
        case .condition(let text):
            return tokens(forCondition: try FCMTopicCondition(parsing: text, grouping: grouping))
        }
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
