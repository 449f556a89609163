import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("Remote Config condition parsing")
struct RemoteConfigConditionParserTests {
    typealias Expression = RemoteConfigConditionExpression

    @Test(
        "parses each element form into the syntax tree",
        arguments: [
            ("true", Expression.constant(true)),
            ("device.os == 'ios'", .predicate(.deviceOS, .equals("ios", negated: false))),
            ("device.os != \"web\"", .predicate(.deviceOS, .equals("web", negated: true))),
            ("device.country in ['US', 'CA',]", .predicate(.deviceCountry, .inList(["US", "CA"]))),
            ("device.language in ['en-US', 'es']", .predicate(.deviceLanguage, .inList(["en-US", "es"]))),
            ("app.id == '1:1234:ios:abcd'", .predicate(.appID, .equals("1:1234:ios:abcd", negated: false))),
            ("app.version.>=(['2.1.0'])", .predicate(.appVersion, .version(.greaterOrEqual, "2.1.0"))),
            ("app.build.<([100])", .predicate(.appBuild, .version(.lessThan, "100"))),
            ("app.version.contains(['beta'])", .predicate(.appVersion, .string(.contains, ["beta"]))),
            (
                "app.userProperty['tier'].exactlyMatches(['gold'])",
                .predicate(.userProperty("tier"), .string(.exactlyMatches, ["gold"]))
            ),
            ("app.userProperty['age'] >= 21", .predicate(.userProperty("age"), .numeric(.greaterOrEqual, 21))),
            ("app.customSignal['n'] != '-2.5'", .predicate(.customSignal("n"), .numeric(.notEqual, -2.5))),
            (
                "app.customSignal['k'].matches(['^a\\d+$'])",
                .predicate(.customSignal("k"), .string(.matches, ["^a\\d+$"]))
            ),
            (
                "version(app.customSignal['v']) >= '1.2.0'",
                .predicate(.customSignal("v"), .version(.greaterOrEqual, "1.2.0"))
            ),
            ("app.firebaseInstallationId in ['f1', 'f2']", .predicate(.installationID, .inList(["f1", "f2"]))),
            ("app.audiences.notInAll(['A', 'B'])", .predicate(.audiences, .audiences(.notInAll, ["A", "B"]))),
            ("percent <= 10", .percent(RemoteConfigPercentCondition(range: .lessOrEqual(10_000_000)))),
            ("percent > 5.5", .percent(RemoteConfigPercentCondition(range: .greaterThan(5_500_000)))),
            (
                "percent('s-1') between 0 and 25",
                .percent(RemoteConfigPercentCondition(seed: "s-1", range: .between(lower: 0, upper: 25_000_000)))
            ),
        ])
    func parsesElements(text: String, expected: Expression) throws {
        #expect(try Expression.parse(text) == expected)
    }

    @Test("parses date-time literals in a zone, defaulting to GMT")
    func parsesDateTimes() throws {
        let pacific = try Expression.parse("dateTime < dateTime('2025-06-01T00:00:00', 'America/Los_Angeles')")
        #expect(pacific == .predicate(.fetchTime, .time(.lessThan, Date(timeIntervalSince1970: 1_748_761_200))))
        let gmt = try Expression.parse("device.dateTime >= dateTime('2025-06-01T00:00:00')")
        #expect(gmt == .predicate(.fetchTime, .time(.greaterOrEqual, Date(timeIntervalSince1970: 1_748_736_000))))
        let firstOpen = try Expression.parse("app.firstOpenTimestamp >= ('2025-06-01T00:00:00')")
        #expect(
            firstOpen == .predicate(.firstOpenTime, .time(.greaterOrEqual, Date(timeIntervalSince1970: 1_748_736_000))))
    }

    @Test("parses conjunctions, and disjunctions and parentheses as an extension")
    func parsesStructure() throws {
        let os = Expression.predicate(.deviceOS, .equals("ios", negated: false))
        #expect(
            try Expression.parse("device.os == 'ios' && true && false")
                == .and([os, .constant(true), .constant(false)]))
        #expect(
            try Expression.parse("true || false && device.os == 'ios'")
                == .or([.constant(true), .and([.constant(false), os])]))
        #expect(
            try Expression.parse("(true || false) && device.os == 'ios'")
                == .and([.or([.constant(true), .constant(false)]), os]))
    }

    @Test(
        "reports malformed expressions with 1-based positions",
        arguments: [
            ("", "empty expression at position 1"),
            ("foo", "unexpected token 'foo' at position 1"),
            ("device.os == 'ios' && foo", "unexpected token 'foo' at position 23"),
            ("device.os == 'ios' &&", "unexpected end of expression at position 22"),
            ("device.os = 'ios'", "unexpected character '=' at position 11"),
            ("device.os == 'ios", "unterminated string at position 14"),
            ("device.planet == 'x'", "unexpected token 'planet' at position 8"),
            ("device.os == 'ios' true", "unexpected token 'true' at position 20"),
            ("(true", "unexpected end of expression at position 6"),
            ("device.country == 'US'", "unexpected token '==' at position 16"),
            (
                "app.version.>=(['1.2', '1.3'])",
                "version comparison takes exactly one value of digits and dots at position 16"
            ),
            ("app.version.>=(['1.x'])", "version comparison takes exactly one value of digits and dots at position 16"),
            ("app.userProperty['age'] >= 'old'", "'old' is not a number at position 28"),
            ("app.userProperty['x'].matches(['('])", "invalid regular expression '(' at position 31"),
            ("percent <= 101", "expected a percentage between 0 and 100 at position 12"),
            ("percent == 5", "unexpected token '==' at position 9"),
            ("percent between 30 and 20", "percent range upper bound must exceed lower bound at position 24"),
            ("percent('bad seed') <= 5", "invalid percent seed 'bad seed' at position 9"),
            (
                "dateTime < dateTime('2025-06-01T00:00:00', 'Mars/Olympus')",
                "unknown time zone 'Mars/Olympus' at position 44"
            ),
            ("dateTime < dateTime('June 1st')", "invalid date-time 'June 1st' at position 21"),
            (
                "version(app.customSignal['v']) >= '1.2.3.4.5.6'",
                "'1.2.3.4.5.6' is not a version of at most 5 numeric parts at position 35"
            ),
            ("!true", "unexpected token '!' at position 1"),
        ])
    func reportsErrors(text: String, fragment: String) {
        let error = #expect(throws: ServiceError.self) { try Expression.parse(text, conditionName: "c1") }
        #expect(error?.status == "INVALID_ARGUMENT")
        #expect(error?.message.hasPrefix("[VALIDATION_ERROR]: Condition 'c1' expression: \(fragment)") == true)
    }

    @Test("limits installation-id lists to 50")
    func limitsInstallationIDs() throws {
        let fifty = (1...50).map { "'f\($0)'" }.joined(separator: ",")
        _ = try Expression.parse("app.firebaseInstallationId in [\(fifty)]")
        #expect(throws: ServiceError.self) { try Expression.parse("app.firebaseInstallationId in [\(fifty),'x']") }
    }

    @Test("counts positions in characters, not bytes")
    func positionsInCharacters() {
        let error = #expect(throws: ServiceError.self) { try Expression.parse("app.userProperty['é🙂'] >= 1 && bad") }
        #expect(error?.message.hasSuffix("unexpected token 'bad' at position 32") == true)
    }

    @Test(
        "compares dotted versions numerically with zero padding",
        arguments: [
            ("1.2", "1.2.0", 0), ("1.10", "1.9", 1), ("2", "10", -1), ("01.002", "1.2", 0),
            ("99999999999999999999999", "1", 1),
        ])
    func comparesVersions(lhs: String, rhs: String, ordering: Int) {
        #expect(Expression.compareVersions(lhs, rhs) == ordering)
    }
}
