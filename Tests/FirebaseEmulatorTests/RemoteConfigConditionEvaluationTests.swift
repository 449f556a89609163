import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("Remote Config condition evaluation")
struct RemoteConfigConditionEvaluationTests {
    static let now = Date(timeIntervalSince1970: 1_748_736_000)  // 2025-06-01T00:00:00Z

    static let instance = RemoteConfigAppInstance(
        installationID: "fid-1",
        appID: "1:1234:ios:abcd",
        appVersion: "2.10.1",
        appBuild: "345",
        platform: "ios",
        languageCode: "en-US",
        countryCode: "us",
        userProperties: ["tier": "gold-plus", "age": "30"],
        customSignals: ["v": "1.4.0", "n": "7", "name": "alpha42"],
        firstOpenTime: Date(timeIntervalSince1970: 1_700_000_000),
        audiences: ["Buyers", "Readers"]
    )

    static func evaluate(_ text: String, _ instance: RemoteConfigAppInstance = instance) throws -> Bool {
        try RemoteConfigConditionExpression.parse(text).evaluate(for: instance, at: now)
    }

    @Test(
        "evaluates elements against a known instance",
        arguments: [
            ("true", true), ("false", false),
            ("device.os == 'ios'", true), ("device.os == 'IOS'", true), ("device.os != 'ios'", false),
            ("device.country in ['CA', 'US']", true), ("device.country in ['CA']", false),
            ("device.language in ['en']", true), ("device.language in ['en-us']", true),
            ("device.language in ['en-GB', 'fr']", false), ("device.language in ['e']", false),
            ("app.id == '1:1234:ios:abcd'", true), ("app.id != '1:1234:ios:abcd'", false),
            ("app.version.>=(['2.9'])", true), ("app.version.<(['2.10.1'])", false),
            ("app.version.==(['2.10.1.0'])", true),
            ("app.version.!=(['2.10.1'])", false), ("app.build.>([99])", true), ("app.build.<=(['344'])", false),
            ("app.version.contains(['10'])", true), ("app.version.notContains(['10'])", false),
            ("app.version.exactlyMatches(['2.10'])", false), ("app.version.matches(['^2\\.\\d+'])", true),
            ("app.userProperty['tier'].contains(['gold'])", true),
            ("app.userProperty['tier'].exactlyMatches(['gold'])", false),
            ("app.userProperty['tier'].notContains(['silver', 'bronze'])", true),
            ("app.userProperty['age'] >= 21", true), ("app.userProperty['age'] < 30", false),
            ("app.userProperty['age'] == 30.0", true), ("app.userProperty['tier'] > 1", false),
            ("app.customSignal['n'] > 6.5", true), ("app.customSignal['name'].matches(['[0-9]+$'])", true),
            ("version(app.customSignal['v']) >= '1.2.0'", true), ("version(app.customSignal['v']) < '1.4'", false),
            ("version(app.customSignal['name']) > '0'", false),
            ("app.firebaseInstallationId in ['fid-0', 'fid-1']", true), ("app.firebaseInstallationId in ['x']", false),
            ("app.audiences.inAtLeastOne(['Buyers', 'Gamers'])", true),
            ("app.audiences.inAll(['Buyers', 'Gamers'])", false),
            ("app.audiences.notInAtLeastOne(['Gamers'])", true),
            ("app.audiences.notInAll(['Buyers', 'Readers'])", false),
            ("dateTime >= dateTime('2025-06-01T00:00:00')", true),
            ("dateTime < dateTime('2025-06-01T00:00:00', 'America/Los_Angeles')", true),
            ("dateTime > dateTime('2025-06-01T00:00:00', 'Asia/Tokyo')", true),
            ("app.firstOpenTimestamp < ('2024-01-01T00:00:00')", true),
            ("device.os == 'ios' && app.userProperty['age'] >= 21", true),
            ("device.os == 'android' && app.userProperty['age'] >= 21", false),
            ("device.os == 'android' || app.userProperty['age'] >= 21", true),
        ])
    func evaluates(text: String, expected: Bool) throws {
        #expect(try Self.evaluate(text) == expected)
    }

    @Test(
        "treats unknown inputs as false, even for negative operators",
        arguments: [
            "device.os != 'ios'", "device.country in ['US']", "device.language in ['en']", "app.id != 'x'",
            "app.version.>=(['0'])", "app.build.notContains(['x'])", "app.userProperty['tier'].notContains(['x'])",
            "app.userProperty['age'] != 3", "app.customSignal['n'] >= 0", "version(app.customSignal['v']) >= '0'",
            "app.firebaseInstallationId in ['']", "app.audiences.notInAtLeastOne(['A'])",
            "app.firstOpenTimestamp >= ('2000-01-01T00:00:00')", "percent <= 100", "percent > 0",
        ])
    func unknownInputsAreFalse(text: String) throws {
        #expect(try Self.evaluate(text, RemoteConfigAppInstance()) == false)
    }

    @Test("compares numbers only when the input parses as one")
    func nonNumericInput() throws {
        let instance = RemoteConfigAppInstance(userProperties: ["age": "thirty"], customSignals: ["n": "0x10"])
        #expect(try Self.evaluate("app.userProperty['age'] != 3", instance) == false)
        #expect(try Self.evaluate("app.customSignal['n'] >= 0", instance) == false)
    }
}
