import CloudFunctions
import Foundation

/// A parsed FCM topic condition such as `'A' in topics && ('B' in topics || 'C' in topics)`.
///
/// Grammar: `'name' in topics` (single or double quotes), `&&`, `||`, parentheses and, as an
/// extension FCM does not document, `!` (negation). FCM's documentation says parenthesised
/// parts are evaluated first and the rest left to right, so by default `&&` and `||` have equal
/// precedence and group to the left (`A || B && C` means `(A || B) && C`); ``Grouping/andBeforeOr``
/// gives the conventional precedence instead. At most 5 topics may appear (counted per
/// occurrence).
package struct FCMTopicCondition: Sendable, Hashable {
    /// A condition's syntax tree.
    public indirect enum Expression: Sendable, Hashable {
        /// `'name' in topics`.
        case topic(String)
        /// `!expression`.
        case not(Expression)
        /// `lhs && rhs`.
        case and(Expression, Expression)
        /// `lhs || rhs`.
        case or(Expression, Expression)
    }

    /// How `&&` and `||` group without parentheses.
    public enum Grouping: Sendable, Hashable {
        /// Equal precedence, left to right (FCM's documented rule; the default).
        case leftToRight
        /// `&&` binds tighter than `||`.
        case andBeforeOr
    }

    /// The most topics one condition may name.
    public static let maxTopics = 5
    /// The deepest nesting of parentheses and `!` accepted.
    public static let maxDepth = 64

    /// The condition text as given.
    public let source: String
    /// The syntax tree.
    public let expression: Expression
    /// The distinct topic names, in order of first appearance.
    public let topics: [String]

    /// Creates a condition from a syntax tree.
    public init(expression: Expression, source: String? = nil) {
        self.expression = expression
        self.source = source ?? expression.description
        var topics: [String] = []
        expression.collectTopics(into: &topics)
        self.topics = topics
    }

    /// Whether a device subscribed to `subscribed` matches the condition.
    public func evaluate(subscribedTo subscribed: Set<String>) -> Bool {
        expression.evaluate { subscribed.contains($0) }
    }

    /// Whether the condition holds, given a subscription test per topic.
    public func evaluate(_ isSubscribed: (String) -> Bool) -> Bool {
        expression.evaluate(isSubscribed)
    }

    /// The truth table over ``topics``: entry `mask` is the result when topic `i` is subscribed
    /// exactly when bit `i` of `mask` is set (2^5 = 32 entries at most). Empty when the condition
    /// was built in code with more than ``maxTopics`` topics.
    public var truthTable: [Bool] {
        guard topics.count <= Self.maxTopics else { return [] }
        let index = Dictionary(topics.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return (0..<(1 << topics.count)).map { mask in
            expression.evaluate { topic in index[topic].map { mask & (1 << $0) != 0 } ?? false }
        }
    }
}

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
