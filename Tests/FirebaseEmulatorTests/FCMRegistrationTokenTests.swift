import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("FCM registration tokens and message ids")
struct FCMRegistrationTokenTests {
    @Test("generated tokens have the production shape and are well formed")
    func generatedShape() throws {
        var random = SplitMixRandom(seed: 42)
        for _ in 0..<50 {
            let token = FCMRegistrationToken.generate(using: &random)
            #expect(token.count == 22 + 1 + 6 + 134)
            let parts = token.split(separator: ":")
            #expect(parts.count == 2)
            #expect(parts[0].count == 22)
            #expect("cdef".contains(try #require(parts[0].first)))
            #expect(parts[1].hasPrefix("APA91b"))
            #expect(FCMRegistrationToken.isWellFormed(token))
            #expect(FCMRegistrationToken.instanceID(of: token) == String(parts[0]))
        }
    }

    @Test("generation is deterministic for a seeded generator")
    func deterministic() {
        var first = SplitMixRandom(seed: 7)
        var second = SplitMixRandom(seed: 7)
        #expect(FCMRegistrationToken.generate(using: &first) == FCMRegistrationToken.generate(using: &second))
        var third = SplitMixRandom(seed: 8)
        #expect(FCMRegistrationToken.generate(using: &third) != FCMTestFixtures.token(seed: 7))
    }

    @Test("a given instance id is kept")
    func givenInstanceID() {
        var random = SplitMixRandom(seed: 1)
        let token = FCMRegistrationToken.generate(instanceID: "dXJlbGVhc2VkX2lkXzEyMz", using: &random)
        #expect(token.hasPrefix("dXJlbGVhc2VkX2lkXzEyMz:APA91b"))
    }

    @Test("real-looking and legacy tokens are accepted", arguments: [
        "fMEQ2Bq9Qd6Ej3Q1lC9K7x:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx8gKp4ZXgUOD2c1_rN0Wbr2OBX1sxSb8e9pmWwDR3",
        "APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx8gKp4ZXgUOD2c1_rN0Wbr2OBX1sxSb8e9pmWwDR3",
    ])
    func accepted(token: String) {
        #expect(FCMRegistrationToken.isWellFormed(token))
    }

    @Test("malformed tokens are rejected", arguments: [
        "", "abc", "fMEQ2Bq9Qd6Ej3Q1lC9K7x:", ":APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx8",
        "fMEQ2Bq9Qd6Ej3Q1lC9K7x:XPA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx8",
        "fMEQ2Bq9Qd6Ej3Q1lC9K7x:APA91bHun4MxP5egoKM wt2KZFBaFUH-1RYqx8",
        "fMEQ2Bq9Qd6Ej3Q1lC9K7x:APA91bHun4", "fMEQ2Bq9Qd6Ej3Q1lC9K7x:APA91bHun4MxP5egoKMwt2KZFBa:FUH-1RYqx8",
    ])
    func rejected(token: String) throws {
        #expect(!FCMRegistrationToken.isWellFormed(token))
        let error = try #require(FCMTestFixtures.error { () throws(ServiceError) in
            try FCMRegistrationToken.validate(token)
        })
        #expect(error.status == "INVALID_ARGUMENT")
        #expect(error.message == "The registration token is not a valid FCM registration token")
        #expect(FCMTestFixtures.fcmErrorCode(error) == "INVALID_ARGUMENT")
    }

    @Test("message ids look like production ones and round-trip through the name")
    func messageIDs() throws {
        var random = SplitMixRandom(seed: 3)
        let date = Date(timeIntervalSince1970: 1_500_415_314.455276)
        let id = FCMMessageID.generate(projectID: "demo-proj", at: date, using: &random)
        #expect(id.messageID.hasPrefix("0:15004153144552"))
        let suffix = try #require(id.messageID.split(separator: "%").last)
        #expect(suffix.count == 16 && suffix.allSatisfy(\.isHexDigit))
        #expect(id.name == "projects/demo-proj/messages/\(id.messageID)")
        #expect(FCMMessageID(name: id.name) == id)
        #expect(id.responseBody == ["name": .string(id.name)])
        #expect(FCMMessageID(name: "projects/p/topics/x") == nil)
        #expect(FCMMessageID(name: "projects//messages/x") == nil)
        #expect(FCMMessageID.generate(projectID: "p", at: Date(timeIntervalSince1970: -5), using: &random)
            .messageID.hasPrefix("0:0000000000000000%"))
    }
}
