import Foundation
import CloudFunctions

extension FCMTopicCondition {
    /// Parses a condition.
    ///
    /// - Parameters:
    ///   - text: the condition, e.g. `"'A' in topics && !('B' in topics)"`.
    ///   - grouping: how `&&` and `||` group without parentheses.
    ///   - field: the request field named in the error's field violation.
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` (FCM details) naming the 0-based position (in
    ///   Unicode scalars) of the first problem.
    public init(parsing text: String, grouping: Grouping = .leftToRight, field: String = "message.condition")
        throws(ServiceError)
    {
        var parser = FCMTopicConditionParser(text: text, grouping: grouping, field: field)
        let expression = try parser.parseCondition()
        self.init(expression: expression, source: text)
    }
}

/// A recursive-descent parser over the condition's Unicode scalars.
struct FCMTopicConditionParser {
    private let scalars: [Unicode.Scalar]
    private let grouping: FCMTopicCondition.Grouping
    private let field: String
    private var position = 0
    private var topicCount = 0

    init(text: String, grouping: FCMTopicCondition.Grouping, field: String) {
        self.scalars = Array(text.unicodeScalars)
        self.grouping = grouping
        self.field = field
    }

    mutating func parseCondition() throws(ServiceError) -> FCMTopicCondition.Expression {
        let expression = try parseExpression(depth: 0)
        skipSpace()
        if position < scalars.count { throw failure("unexpected '\(scalars[position])'") }
        return expression
    }

    private mutating func parseExpression(depth: Int) throws(ServiceError) -> FCMTopicCondition.Expression {
        switch grouping {
        case .leftToRight:
            var lhs = try parseUnary(depth: depth)
            while let isAnd = try parseOperator(allowingAnd: true, allowingOr: true) {
                let rhs = try parseUnary(depth: depth)
                lhs = isAnd ? .and(lhs, rhs) : .or(lhs, rhs)
            }
            return lhs
        case .andBeforeOr:
            var lhs = try parseConjunction(depth: depth)
            while try parseOperator(allowingAnd: false, allowingOr: true) != nil {
                lhs = .or(lhs, try parseConjunction(depth: depth))
            }
            return lhs
        }
    }

    private mutating func parseConjunction(depth: Int) throws(ServiceError) -> FCMTopicCondition.Expression {
        var lhs = try parseUnary(depth: depth)
        while try parseOperator(allowingAnd: true, allowingOr: false) != nil {
            lhs = .and(lhs, try parseUnary(depth: depth))
        }
        return lhs
    }

    /// Consumes `&&` (returns true) or `||` (returns false) when allowed and present.
    private mutating func parseOperator(allowingAnd: Bool, allowingOr: Bool) throws(ServiceError) -> Bool? {
        skipSpace()
        guard position < scalars.count else { return nil }
        let symbol = scalars[position]
        guard (symbol == "&" && allowingAnd) || (symbol == "|" && allowingOr) else { return nil }
        guard position + 1 < scalars.count, scalars[position + 1] == symbol else {
            throw failure("expected '\(symbol)\(symbol)'")
        }
        position += 2
        return symbol == "&"
    }

    private mutating func parseUnary(depth: Int) throws(ServiceError) -> FCMTopicCondition.Expression {
        skipSpace()
        guard position < scalars.count else { throw failure("expected a topic, '(' or '!'") }
        switch scalars[position] {
        case "!":
            guard depth < FCMTopicCondition.maxDepth else { throw failure("nesting too deep") }
            position += 1
            return .not(try parseUnary(depth: depth + 1))
        case "(":
            guard depth < FCMTopicCondition.maxDepth else { throw failure("nesting too deep") }
            position += 1
            let inner = try parseExpression(depth: depth + 1)
            skipSpace()
            guard position < scalars.count, scalars[position] == ")" else { throw failure("expected ')'") }
            position += 1
            return inner
        case "'", "\"":
            return .topic(try parseTopicTerm())
        default:
            throw failure("expected a topic, '(' or '!'")
        }
    }

    /// Parses `'name' in topics`.
    private mutating func parseTopicTerm() throws(ServiceError) -> String {
        let start = position
        let quote = scalars[position]
        position += 1
        var name = String.UnicodeScalarView()
        while position < scalars.count, scalars[position] != quote {
            name.append(scalars[position])
            position += 1
        }
        guard position < scalars.count else {
            position = start
            throw failure("unterminated topic name")
        }
        position += 1
        let topic = String(name)
        guard FCMTopicName.isValid(topic) else {
            position = start
            throw failure("invalid topic name \"\(topic)\"")
        }
        topicCount += 1
        guard topicCount <= FCMTopicCondition.maxTopics else {
            position = start
            throw failure("more than \(FCMTopicCondition.maxTopics) topics")
        }
        try expectWord("in")
        try expectWord("topics")
        return topic
    }

    private mutating func expectWord(_ word: String) throws(ServiceError) {
        skipSpace()
        let start = position
        while position < scalars.count, scalars[position].properties.isAlphabetic { position += 1 }
        guard String(String.UnicodeScalarView(scalars[start..<position])) == word else {
            position = start
            throw failure("expected '\(word)'")
        }
    }

    private mutating func skipSpace() {
        while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
    }

    private func failure(_ problem: String) -> ServiceError {
        FCMErrorCode.invalidArgument(
            "Invalid condition expression provided: \(problem) at position \(position).", field: field)
    }
}
