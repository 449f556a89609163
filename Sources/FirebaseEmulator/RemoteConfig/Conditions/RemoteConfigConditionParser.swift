import Foundation
import CloudFunctions

/// Recursive-descent parser for condition expressions.
///
/// Grammar (`||`, parentheses are emulator extensions):
/// ```
/// expression := conjunction ('||' conjunction)*
/// conjunction := primary ('&&' primary)*
/// primary := '(' expression ')' | 'true' | 'false' | element
/// ```
struct RemoteConfigConditionParser {
    typealias Token = RemoteConfigConditionLexer.Token
    typealias SyntaxError = RemoteConfigConditionSyntaxError

    var tokens: [Token]
    var index = 0

    init(tokens: [Token]) {
        self.tokens = tokens
    }

    /// Parses a whole expression.
    static func parse(_ expression: String) throws(SyntaxError) -> RemoteConfigConditionExpression {
        var parser = RemoteConfigConditionParser(tokens: try RemoteConfigConditionLexer.tokenize(expression))
        if parser.current.kind == .end {
            throw SyntaxError(position: parser.current.position, reason: "empty expression")
        }
        let result = try parser.parseDisjunction()
        guard parser.current.kind == .end else { throw parser.unexpected() }
        return result
    }

    // MARK: - Structure

    mutating func parseDisjunction() throws(SyntaxError) -> RemoteConfigConditionExpression {
        var terms = [try parseConjunction()]
        while accept(symbol: "||") {
            terms.append(try parseConjunction())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    mutating func parseConjunction() throws(SyntaxError) -> RemoteConfigConditionExpression {
        var terms = [try parsePrimary()]
        while accept(symbol: "&&") {
            terms.append(try parsePrimary())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    mutating func parsePrimary() throws(SyntaxError) -> RemoteConfigConditionExpression {
        if accept(symbol: "(") {
            let inner = try parseDisjunction()
            try expect(symbol: ")")
            return inner
        }
        guard case .identifier(let name) = current.kind else { throw unexpected() }
        switch name {
        case "true", "false":
            advance()
            return .constant(name == "true")
        case "device":
            advance()
            return try parseDeviceElement()
        case "app":
            advance()
            return try parseAppElement()
        case "dateTime":
            advance()
            return .predicate(.fetchTime, .time(try parseComparisonOperator(), try parseTimeLiteral()))
        case "percent":
            advance()
            return try parsePercentElement()
        case "version":
            advance()
            return try parseVersionFunctionElement()
        default:
            throw unexpected()
        }
    }

    // MARK: - Token helpers

    var current: Token { tokens[min(index, tokens.count - 1)] }

    mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    mutating func accept(symbol: String) -> Bool {
        guard current.kind == .symbol(symbol) else { return false }
        advance()
        return true
    }

    mutating func accept(identifier: String) -> Bool {
        guard current.kind == .identifier(identifier) else { return false }
        advance()
        return true
    }

    mutating func expect(symbol: String) throws(SyntaxError) {
        guard accept(symbol: symbol) else { throw unexpected(expecting: "'\(symbol)'") }
    }

    mutating func expect(identifier: String) throws(SyntaxError) {
        guard accept(identifier: identifier) else { throw unexpected(expecting: "'\(identifier)'") }
    }

    /// Reads an identifier out of `allowed`.
    mutating func expectIdentifier(in allowed: [String]) throws(SyntaxError) -> String {
        guard case .identifier(let name) = current.kind, allowed.contains(name) else {
            throw unexpected(expecting: allowed.map { "'\($0)'" }.joined(separator: ", "))
        }
        advance()
        return name
    }

    /// Reads a quoted string.
    mutating func expectString() throws(SyntaxError) -> String {
        guard case .string(let value) = current.kind else { throw unexpected(expecting: "a quoted string") }
        advance()
        return value
    }

    /// The error for the current token.
    func unexpected(expecting expected: String? = nil) -> SyntaxError {
        if current.kind == .end {
            return SyntaxError(position: current.position, reason: "unexpected end of expression", expected: expected)
        }
        return SyntaxError(position: current.position, reason: "unexpected token '\(current.text)'", expected: expected)
    }
}
