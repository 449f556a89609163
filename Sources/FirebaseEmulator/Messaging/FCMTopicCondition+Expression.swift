import Foundation
import CloudFunctions

extension FCMTopicCondition.Expression: CustomStringConvertible {
    /// Evaluates the expression with a subscription test per topic.
    public func evaluate(_ isSubscribed: (String) -> Bool) -> Bool {
        switch self {
        case .topic(let name): isSubscribed(name)
        case .not(let operand): !operand.evaluate(isSubscribed)
        case .and(let lhs, let rhs): lhs.evaluate(isSubscribed) && rhs.evaluate(isSubscribed)
        case .or(let lhs, let rhs): lhs.evaluate(isSubscribed) || rhs.evaluate(isSubscribed)
        }
    }

    /// Appends the topics not yet in `topics`, in order of appearance.
    func collectTopics(into topics: inout [String]) {
        switch self {
        case .topic(let name):
            if !topics.contains(name) { topics.append(name) }
        case .not(let operand):
            operand.collectTopics(into: &topics)
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            lhs.collectTopics(into: &topics)
            rhs.collectTopics(into: &topics)
        }
    }

    /// The expression in FCM syntax, fully parenthesised.
    public var description: String {
        switch self {
        case .topic(let name): "'\(name)' in topics"
        case .not(let operand): "!(\(operand))"
        case .and(let lhs, let rhs): "(\(lhs) && \(rhs))"
        case .or(let lhs, let rhs): "(\(lhs) || \(rhs))"
        }
    }
}
