import CloudFunctions
import Foundation
import FirebaseEmulator
import Testing

@Suite("Remote Config percent conditions")
struct RemoteConfigPercentTests {
    @Test(
        "hashes seed.id with SHA-256 modulo 100,000,000",
        arguments: [
            ("abc", "fid-1", 83_652_738), ("", "fid-1", 66_201_432), ("seed_1", "installation-42", 70_475_408),
        ])
    func microPercentile(seed: String, id: String, expected: Int) {
        #expect(RemoteConfigPercentCondition.microPercentile(seed: seed, randomizationID: id) == expected)
    }

    @Test("applies LESS_OR_EQUAL, GREATER_THAN and BETWEEN bounds exactly")
    func ranges() {
        let x = 66_201_432
        #expect(RemoteConfigPercentCondition.Range.lessOrEqual(x).contains(x))
        #expect(!RemoteConfigPercentCondition.Range.lessOrEqual(x - 1).contains(x))
        #expect(!RemoteConfigPercentCondition.Range.greaterThan(x).contains(x))
        #expect(RemoteConfigPercentCondition.Range.greaterThan(x - 1).contains(x))
        #expect(!RemoteConfigPercentCondition.Range.between(lower: x, upper: x + 1).contains(x))
        #expect(RemoteConfigPercentCondition.Range.between(lower: x - 1, upper: x).contains(x))
    }

    @Test("is deterministic per installation and seed")
    func deterministic() throws {
        let instance = RemoteConfigAppInstance(installationID: "fid-1")
        let now = Date(timeIntervalSince1970: 0)
        // fid-1 sits at 66.201432%.
        #expect(try RemoteConfigConditionExpression.parse("percent <= 66.201432").evaluate(for: instance, at: now))
        #expect(try !RemoteConfigConditionExpression.parse("percent <= 66.201431").evaluate(for: instance, at: now))
        #expect(try RemoteConfigConditionExpression.parse("percent > 66.201431").evaluate(for: instance, at: now))
        // seed abc puts it at 83.652738%.
        #expect(
            try RemoteConfigConditionExpression.parse("percent('abc') between 83 and 84").evaluate(
                for: instance, at: now))
        for _ in 0..<3 {
            #expect(
                try RemoteConfigConditionExpression.parse("percent('abc') > 83.7").evaluate(for: instance, at: now)
                    == false)
        }
    }

    @Test("selects 30% ± 2 points of 10,000 installations for percent <= 30")
    func distribution() throws {
        let expression = try RemoteConfigConditionExpression.parse("percent <= 30")
        let seeded = try RemoteConfigConditionExpression.parse("percent('exp1') between 10 and 40")
        var generator = SplitMixRandom(seed: 42)
        var hits = 0
        var seededHits = 0
        let now = Date(timeIntervalSince1970: 0)
        for _ in 0..<10_000 {
            let id = String(
                (0..<22).map { _ in
                    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".randomElement(using: &generator)!
                })
            let instance = RemoteConfigAppInstance(installationID: id)
            if expression.evaluate(for: instance, at: now) { hits += 1 }
            if seeded.evaluate(for: instance, at: now) { seededHits += 1 }
        }
        #expect((2_800...3_200).contains(hits))
        #expect((2_800...3_200).contains(seededHits))
    }
}

