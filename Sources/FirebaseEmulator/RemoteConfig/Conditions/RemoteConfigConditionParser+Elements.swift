import Foundation
import CloudFunctions

extension RemoteConfigConditionParser {
    /// Most installation ids one `app.firebaseInstallationId in [...]` element may list.
    static let maxInstallationIDs = 50

    /// `device.os ==|!= 'x'`, `device.country in [...]`, `device.language in [...]`, `device.dateTime <op> t`.
    mutating func parseDeviceElement() throws(SyntaxError) -> RemoteConfigConditionExpression {
        try expect(symbol: ".")
        switch try expectIdentifier(in: ["os", "country", "language", "dateTime"]) {
        case "os":
            let negated = try parseEqualityOperator()
            return .predicate(.deviceOS, .equals(try expectString(), negated: negated))
        case "country":
            try expect(identifier: "in")
            return .predicate(.deviceCountry, .inList(try parseList().values))
        case "language":
            try expect(identifier: "in")
            return .predicate(.deviceLanguage, .inList(try parseList().values))
        default:
            return .predicate(.fetchTime, .time(try parseComparisonOperator(), try parseTimeLiteral()))
        }
    }

    /// The `app.` elements.
    mutating func parseAppElement() throws(SyntaxError) -> RemoteConfigConditionExpression {
        try expect(symbol: ".")
        let names = [
            "id", "version", "build", "userProperty", "customSignal", "audiences", "firebaseInstallationId",
            "firstOpenTimestamp",
        ]
        switch try expectIdentifier(in: names) {
        case "id":
            let negated = try parseEqualityOperator()
            return .predicate(.appID, .equals(try expectString(), negated: negated))
        case "version":
            return .predicate(.appVersion, try parseVersionMethod())
        case "build":
            return .predicate(.appBuild, try parseVersionMethod())
        case "userProperty":
            let key = try parseSubscript()
            return .predicate(.userProperty(key), try parseSignalTest())
        case "customSignal":
            let key = try parseSubscript()
            return .predicate(.customSignal(key), try parseSignalTest())
        case "audiences":
            try expect(symbol: ".")
            let name = try expectIdentifier(in: RemoteConfigConditionTest.AudienceOperator.allCases.map(\.rawValue))
            let list = try parseParenthesizedList()
            return .predicate(.audiences, .audiences(.init(rawValue: name) ?? .inAtLeastOne, list.values))
        case "firebaseInstallationId":
            try expect(identifier: "in")
            let list = try parseList()
            guard list.values.count <= Self.maxInstallationIDs else {
                throw SyntaxError(
                    position: list.position, reason: "more than \(Self.maxInstallationIDs) installation ids"
                )
            }
            return .predicate(.installationID, .inList(list.values))
        default:
            return .predicate(.firstOpenTime, .time(try parseComparisonOperator(), try parseTimeLiteral()))
        }
    }

    /// `percent <= N`, `percent > N`, `percent('seed') between A and B` (0 ≤ A < B ≤ 100).
    mutating func parsePercentElement() throws(SyntaxError) -> RemoteConfigConditionExpression {
        var seed = ""
        if accept(symbol: "(") {
            let seedPosition = current.position
            seed = try expectString()
            guard RemoteConfigPercentCondition.isValidSeed(seed) else {
                throw SyntaxError(position: seedPosition, reason: "invalid percent seed '\(seed)'")
            }
            try expect(symbol: ")")
        }
        if accept(identifier: "between") {
            let lower = try parsePercentBound()
            try expect(identifier: "and")
            let upperPosition = current.position
            let upper = try parsePercentBound()
            guard lower < upper else {
                throw SyntaxError(position: upperPosition, reason: "percent range upper bound must exceed lower bound")
            }
            return .percent(RemoteConfigPercentCondition(seed: seed, range: .between(lower: lower, upper: upper)))
        }
        let operatorToken = current
        switch try parseComparisonOperator() {
        case .lessOrEqual:
            return .percent(RemoteConfigPercentCondition(seed: seed, range: .lessOrEqual(try parsePercentBound())))
        case .greaterThan:
            return .percent(RemoteConfigPercentCondition(seed: seed, range: .greaterThan(try parsePercentBound())))
        default:
            throw SyntaxError(
                position: operatorToken.position,
                reason: "unexpected token '\(operatorToken.text)'",
                expected: "'<=', '>' or 'between'"
            )
        }
    }

    /// `version(app.customSignal['k']) <op> '1.2.3'` (at most 5 dot-separated parts).
    mutating func parseVersionFunctionElement() throws(SyntaxError) -> RemoteConfigConditionExpression {
        try expect(symbol: "(")
        try expect(identifier: "app")
        try expect(symbol: ".")
        try expect(identifier: "customSignal")
        let key = try parseSubscript()
        try expect(symbol: ")")
        let comparison = try parseComparisonOperator()
        let position = current.position
        let target = try parseScalar()
        guard RemoteConfigConditionExpression.versionComponents(target).map({ $0.count <= 5 }) == true else {
            throw SyntaxError(position: position, reason: "'\(target)' is not a version of at most 5 numeric parts")
        }
        return .predicate(.customSignal(key), .version(comparison, target))
    }
}
