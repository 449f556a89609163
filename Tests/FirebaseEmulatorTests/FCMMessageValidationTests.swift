import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("FCM message validation")
struct FCMMessageValidationTests {
    private let validator = FCMMessageValidation()

    private func failure(_ message: Message, _ validator: FCMMessageValidation = FCMMessageValidation())
        -> ServiceError?
    {
        FCMTestFixtures.error { () throws(ServiceError) in try validator.validate(message) }
    }

    private func parsed(_ json: String) throws -> Message {
        try Message.parseFCM(JSONValue(parsing: json))
    }

    @Test("a generated token, a topic and a condition are valid targets")
    func validTargets() throws {
        let token = FCMTestFixtures.token(seed: 1)
        #expect(try validator.validate(Message(.token(token))) == .token(token))
        #expect(try validator.validate(Message(.topic("/topics/a-b_c.d~e%f"))) == .topic("a-b_c.d~e%f"))
        let condition = "'a' in topics && ('b' in topics || 'c' in topics)"
        #expect(try validator.validate(Message(.condition(condition))) == .condition(condition))
    }

    @Test("a message without a recipient is rejected")
    func noTarget() throws {
        let error = try #require(FCMTestFixtures.error { () throws(ServiceError) in
            _ = try Message.parseFCM(["data": ["a": "b"]])
        })
        #expect(error.message == "Recipient of the message is not set.")
        #expect(FCMTestFixtures.fcmErrorCode(error) == "INVALID_ARGUMENT")
    }

    @Test("a malformed token is rejected with FCM's message", arguments: ["", "token-1", "abc:def", "APA91b"])
    func badToken(token: String) throws {
        let error = try #require(failure(Message(.token(token))))
        #expect(error.message == "The registration token is not a valid FCM registration token")
        #expect(FCMTestFixtures.violatedField(error) == "message.token")
    }

    @Test("malformed topic names are rejected", arguments: ["", "/topics/", "a b", "news!", "ü"])
    func badTopic(topic: String) throws {
        let error = try #require(failure(Message(.topic(topic))))
        #expect(error.status == "INVALID_ARGUMENT")
        #expect(FCMTestFixtures.violatedField(error) == "message.topic")
    }

    @Test("a malformed condition is rejected with its position")
    func badCondition() throws {
        let error = try #require(failure(Message(.condition("'a' in topics &&"))))
        #expect(error.message.contains("position 16"))
        #expect(FCMTestFixtures.violatedField(error) == "message.condition")
    }

    @Test("reserved data keys are rejected",
          arguments: ["from", "message_type", "gcm", "gcm.notification.title", "gcm.x", "google.c.a"])
    func reservedKeys(key: String) throws {
        let error = try #require(failure(Message(.topic("a"), data: [key: "v"])))
        #expect(error.message.contains("\"\(key)\""))
        #expect(FCMTestFixtures.violatedField(error) == "message.data")
        let android = Message(.topic("a"), android: AndroidConfig(data: [key: "v"]))
        #expect(FCMTestFixtures.violatedField(try #require(failure(android))) == "message.android.data")
    }

    @Test("keys that only resemble reserved ones are allowed", arguments: ["fromage", "googled", "gcmx", "From"])
    func nearReservedKeys(key: String) throws {
        try validator.validate(Message(.topic("a"), data: [key: "v"]))
    }

    @Test("the payload limit counts data keys and values plus notification title and body")
    func payloadSize() throws {
        let value = String(repeating: "x", count: 4096 - 1 - 2 - 3)
        let message = Message(
            .token(FCMTestFixtures.token(seed: 3)), data: ["k": value],
            notification: MessageNotification(title: "ab", body: "cde", image: String(repeating: "i", count: 500)))
        #expect(FCMMessageValidation.payloadSize(of: message) == 4096)
        try validator.validate(message)
        var bigger = message
        bigger.data = ["kk": value]
        let error = try #require(failure(bigger))
        #expect(error.message == "Message is too big: the payload is 4097 bytes, the limit is 4096 bytes.")
    }

    @Test("the payload limit counts what each platform gets: its own data instead of the message's")
    func platformPayloadSize() throws {
        let token = FCMTestFixtures.token(seed: 5)
        var android = Message(.token(token), data: ["k": "v"])
        android.android = AndroidConfig(data: ["big": String(repeating: "x", count: 5000)])
        #expect(FCMMessageValidation.payloadSize(of: android) == 3 + 5000)
        #expect(failure(android)?.message.contains("the payload is 5003 bytes") == true)
        // A platform's data overrides the message's whole: each is counted alone.
        var replaced = Message(.token(token), data: ["k": String(repeating: "x", count: 3000)])
        replaced.android = AndroidConfig(data: ["other": String(repeating: "y", count: 2000)])
        #expect(FCMMessageValidation.payloadSize(of: replaced) == 1 + 3000)
        try validator.validate(replaced)
    }

    @Test("the documented 2048-byte topic limit is available as an option")
    func topicLimit() throws {
        let message = Message(.topic("a"), data: ["k": String(repeating: "x", count: 3000)])
        try validator.validate(message)
        let strict = FCMMessageValidation(limits: .documentedTopicLimit)
        #expect(failure(message, strict)?.message.contains("limit is 2048") == true)
        try strict.validate(Message(.token(FCMTestFixtures.token(seed: 4)), data: message.data))
    }

    @Test("Android ttl must be a non-negative duration of at most 28 days",
          arguments: [("0s", true), ("3600s", true), ("2419200s", true), ("1.5s", true), ("0.123456789s", true),
                      ("2419200.000000001s", false), ("2419201s", false), ("-1s", false)])
    func ttl(ttl: String, valid: Bool) throws {
        let message = try parsed(#"{"topic":"a","android":{"ttl":"\#(ttl)"}}"#)
        #expect((failure(message) == nil) == valid)
        if !valid { #expect(FCMTestFixtures.violatedField(try #require(failure(message))) == "message.android.ttl") }
    }

    @Test("durations outside the JSON form do not decode", arguments: ["1", "s", "1.s", "1.1234567890s", "+1s", "1e3s"])
    func badDurationForms(ttl: String) {
        #expect(FCMDuration(ttl) == nil)
    }

    @Test("Android priority accepts normal and high in any case",
          arguments: ["normal", "NORMAL", "high", "High"])
    func priorities(priority: String) throws {
        try validator.validate(try parsed(#"{"topic":"a","android":{"priority":"\#(priority)"}}"#))
    }

    @Test("apns-priority must be 5 or 10", arguments: [("5", true), ("10", true), ("1", false), ("high", false)])
    func apnsPriority(priority: String, valid: Bool) throws {
        let message = Message(.topic("a"), apns: APNSConfig(headers: ["apns-priority": priority]))
        #expect((failure(message) == nil) == valid)
    }

    @Test("analytics labels, webpush links, colours and aps are checked")
    func otherRules() throws {
        #expect(failure(Message(.topic("a"), fcmOptions: FCMOptions(analyticsLabel: "bad label"))) != nil)
        #expect(failure(Message(.topic("a"),
                                   fcmOptions: FCMOptions(analyticsLabel: String(repeating: "a", count: 51)))) != nil)
        try validator.validate(Message(.topic("a"), fcmOptions: FCMOptions(analyticsLabel: "ok-label_1")))
        let http = WebpushConfig(fcmOptions: WebpushFCMOptions(link: "http://example.com"))
        #expect(failure(Message(.topic("a"), webpush: http)) != nil)
        try validator.validate(try parsed(##"{"topic":"a","android":{"notification":{"color":"#A1b2C3"}}}"##))
        #expect(failure(try parsed(#"{"topic":"a","android":{"notification":{"color":"red"}}}"#)) != nil)
        #expect(failure(Message(.topic("a"), apns: APNSConfig(payload: ["aps": 1]))) != nil)
    }
}
