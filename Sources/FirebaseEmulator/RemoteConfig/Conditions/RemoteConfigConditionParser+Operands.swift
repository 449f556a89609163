import Foundation
import CloudFunctions

extension RemoteConfigConditionParser {
    /// A parsed `[...]` list and where it starts.
    struct ListLiteral {
        var values: [String]
        var position: Int
    }

    /// `==` → false, `!=` → true (negated).
    mutating func parseEqualityOperator() throws(SyntaxError) -> Bool {
        if accept(symbol: "==") { return false }
        if accept(symbol: "!=") { return true }
        throw unexpected(expecting: "'==' or '!='")
    }

    /// One of `<`, `<=`, `==`, `!=`, `>`, `>=`.
    mutating func parseComparisonOperator() throws(SyntaxError) -> RemoteConfigConditionTest.ComparisonOperator {
        guard case .symbol(let text) = current.kind,
            let comparison = RemoteConfigConditionTest.ComparisonOperator(
                rawValue: text
            )
        else { throw unexpected(expecting: "a comparison operator") }
        advance()
        return comparison
    }

    /// `[ 'key' ]`.
    mutating func parseSubscript() throws(SyntaxError) -> String {
        try expect(symbol: "[")
        let key = try expectString()
        try expect(symbol: "]")
        return key
    }

    /// A quoted string or a bare number, as text.
    mutating func parseScalar() throws(SyntaxError) -> String {
        switch current.kind {
        case .string(let value), .number(let value):
            advance()
            return value
        default:
            throw unexpected(expecting: "a value")
        }
    }

    /// `[a, b, ...]` of strings or numbers; a trailing comma is allowed.
    mutating func parseList() throws(SyntaxError) -> ListLiteral {
        let position = current.position
        try expect(symbol: "[")
        var values: [String] = []
        while !accept(symbol: "]") {
            values.append(try parseScalar())
            if !accept(symbol: ",") {
                try expect(symbol: "]")
                break
            }
        }
        return ListLiteral(values: values, position: position)
    }

    /// `([a, b, ...])`.
    mutating func parseParenthesizedList() throws(SyntaxError) -> ListLiteral {
        try expect(symbol: "(")
        let list = try parseList()
        try expect(symbol: ")")
        return list
    }

    /// `.op(['1.2'])` or `.contains([...])` etc. after `app.version` / `app.build`.
    mutating func parseVersionMethod() throws(SyntaxError) -> RemoteConfigConditionTest {
        try expect(symbol: ".")
        if case .symbol = current.kind {
            let comparison = try parseComparisonOperator()
            let list = try parseParenthesizedList()
            guard list.values.count == 1, let target = list.values.first,
                RemoteConfigConditionExpression.versionComponents(target) != nil
            else {
                throw SyntaxError(
                    position: list.position, reason: "version comparison takes exactly one value of digits and dots"
                )
            }
            return .version(comparison, target)
        }
        return try parseStringMethodCall()
    }

    /// `.contains([...])` etc., or an infix numeric comparison, after a user property or custom signal.
    mutating func parseSignalTest() throws(SyntaxError) -> RemoteConfigConditionTest {
        if accept(symbol: ".") {
            return try parseStringMethodCall()
        }
        guard case .symbol = current.kind else { throw unexpected(expecting: "'.' or a comparison operator") }
        let comparison = try parseComparisonOperator()
        let position = current.position
        let text = try parseScalar()
        guard let number = RemoteConfigConditionExpression.parseNumber(text) else {
            throw SyntaxError(position: position, reason: "'\(text)' is not a number")
        }
        return .numeric(comparison, number)
    }

    /// `contains([...])`, `notContains`, `exactlyMatches`, `matches` (regular expressions checked here).
    mutating func parseStringMethodCall() throws(SyntaxError) -> RemoteConfigConditionTest {
        let name = try expectIdentifier(in: RemoteConfigConditionTest.StringOperator.allCases.map(\.rawValue))
        let method = RemoteConfigConditionTest.StringOperator(rawValue: name) ?? .exactlyMatches
        let list = try parseParenthesizedList()
        if method == .matches {
            for pattern in list.values where (try? NSRegularExpression(pattern: pattern)) == nil {
                throw SyntaxError(position: list.position, reason: "invalid regular expression '\(pattern)'")
            }
        }
        return .string(method, list.values)
    }

    /// A percent bound 0...100 (decimals allowed) as micro-percent.
    mutating func parsePercentBound() throws(SyntaxError) -> Int {
        let position = current.position
        guard case .number(let text) = current.kind, let value = Double(text), value >= 0, value <= 100 else {
            throw SyntaxError(position: position, reason: "expected a percentage between 0 and 100")
        }
        advance()
        return Int((value * Double(RemoteConfigPercentCondition.microPercentPerPercent)).rounded())
    }

    /// `dateTime('2025-06-01T00:00:00', 'Zone')` or `('2025-06-01T00:00:00')`; the zone defaults to GMT.
    mutating func parseTimeLiteral() throws(SyntaxError) -> Date {
        _ = accept(identifier: "dateTime")
        try expect(symbol: "(")
        let timePosition = current.position
        let text = try expectString()
        var zone = TimeZone(identifier: "GMT") ?? TimeZone(secondsFromGMT: 0)
        if accept(symbol: ",") {
            let zonePosition = current.position
            let name = try expectString()
            guard let named = TimeZone(identifier: name) else {
                throw SyntaxError(position: zonePosition, reason: "unknown time zone '\(name)'")
            }
            zone = named
        }
        try expect(symbol: ")")
        guard let zone, let date = ConditionLocalTime.parse(text, in: zone) else {
            throw SyntaxError(position: timePosition, reason: "invalid date-time '\(text)'")
        }
        return date
    }
}
