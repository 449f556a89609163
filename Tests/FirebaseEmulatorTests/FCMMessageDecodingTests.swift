import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("FCM message decoding")
struct FCMMessageDecodingTests {
    @Test("decodes the observed Python admin body with snake_case fields")
    func pythonBody() throws {
        #expect(FCMTestFixtures.pythonSendBody.count == 223)  // the verbatim one-line body, no whitespace
        #expect(!FCMTestFixtures.pythonSendBody.contains("\n"))
        let request = try FCMSendRequest.parse(Data(FCMTestFixtures.pythonSendBody.utf8))
        #expect(request.validateOnly)
        let message = request.message
        #expect(message.target == .topic("news"))
        #expect(message.data == ["k": "v"])
        #expect(message.android?.priority == .high)
        #expect(message.android?.ttl == "3600s")
        #expect(message.android?.ttl.flatMap(FCMDuration.init) == FCMDuration(seconds: 3600))
        #expect(message.apns?.headers == ["apns-priority": "5", "apns-push-type": "background"])
        #expect(message.apns?.isContentAvailable == true)
        try FCMMessageValidation().validate(message)
    }

    @Test("decodes the same body written in camelCase")
    func camelCaseBody() throws {
        let body = """
            {"message":{"android":{"priority":"HIGH","ttl":"3600s","collapseKey":"c","restrictedPackageName":"p",\
            "directBootOk":true,"fcmOptions":{"analyticsLabel":"a"}},"fcmOptions":{"analyticsLabel":"top"},\
            "data":{"k":"v"},"topic":"/topics/news"},"validateOnly":true}
            """
        let request = try FCMSendRequest.parse(Data(body.utf8))
        #expect(request.validateOnly)
        #expect(request.message.target == .topic("news"))
        #expect(request.message.android?.priority == .high)
        #expect(request.message.android?.collapseKey == "c")
        #expect(request.message.android?.restrictedPackageName == "p")
        #expect(request.message.android?.directBootOk == true)
        #expect(request.message.android?.fcmOptions?.analyticsLabel == "a")
        #expect(request.message.fcmOptions?.analyticsLabel == "top")
    }

    @Test("snake_case nested fields land in the same properties")
    func snakeCaseNested() throws {
        let json = try JSONValue(parsing: """
            {"token":"t","android":{"collapse_key":"c","restricted_package_name":"p","direct_boot_ok":false,\
            "notification":{"click_action":"OPEN","channel_id":"ch","notification_priority":"priority_high",\
            "body_loc_args":["a","b"],"notification_count":"3","color":"#a0b0c0"},\
            "fcm_options":{"analytics_label":"x"}},"apns":{"fcm_options":{"analytics_label":"y","image":"https://i"}},\
            "webpush":{"fcm_options":{"link":"https://l"}},\
            "fcm_options":{"analytics_label":"z"}}
            """)
        let message = try Message.parseFCM(json)
        let notification = try #require(message.android?.notification)
        #expect(notification.clickAction == "OPEN")
        #expect(notification.channelId == "ch")
        #expect(notification.notificationPriority == "PRIORITY_HIGH")
        #expect(notification.bodyLocArgs == ["a", "b"])
        #expect(notification.notificationCount == 3)
        #expect(message.android?.collapseKey == "c")
        #expect(message.android?.directBootOk == false)
        #expect(message.apns?.fcmOptions == APNSFCMOptions(analyticsLabel: "y", image: "https://i"))
        #expect(message.webpush?.fcmOptions?.link == "https://l")
        #expect(message.fcmOptions?.analyticsLabel == "z")
    }

    @Test("the pushConfig message decodes and validates")
    func pushConfig() throws {
        #expect(FCMTestFixtures.pushConfigMessage.count == 195)
        let message = try Message.parseFCM(JSONValue(parsing: FCMTestFixtures.pushConfigMessage))
        #expect(try FCMMessageValidation().validate(message) == .topic("PUSH_RC"))
        #expect(message.data == ["CONFIG_STATE": "STALE"])
        #expect(message.apns?.aps?["content-available"] == 1)
    }

    @Test("encoding writes camelCase and lowercase priority, and round-trips")
    func encoding() throws {
        var android = AndroidConfig(priority: .high, ttl: "60s", collapseKey: "c", restrictedPackageName: "p")
        android.directBootOk = true
        let message = Message(
            .topic("/topics/news"), data: ["k": "v"], notification: MessageNotification(title: "T"),
            android: android, fcmOptions: FCMOptions(analyticsLabel: "l"))
        let json = try JSONValue(encoding: message)
        #expect(json["topic"] == "news")
        #expect(json["android"]?["collapseKey"] == "c")
        #expect(json["android"]?["restrictedPackageName"] == "p")
        #expect(json["android"]?["directBootOk"] == true)
        #expect(json["android"]?["priority"] == "high")
        #expect(json["fcmOptions"]?["analyticsLabel"] == "l")
        #expect(json["token"] == nil)
        #expect(try Message.parseFCM(json) == message)
        let viaCodable = try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(message))
        #expect(viaCodable == message)
    }

    @Test("a request without a message lacks a recipient")
    func absentMessage() throws {
        let error = FCMTestFixtures.error { () throws(ServiceError) in
            _ = try FCMSendRequest.parse(JSONValue.object([:]))
        }
        #expect(error?.message == "Recipient of the message is not set.")
    }

    @Test("null fields are treated as absent")
    func nullFields() throws {
        let message = try Message.parseFCM(JSONValue(parsing: #"{"topic":"a","token":null,"android":null}"#))
        #expect(message.target == .topic("a"))
        #expect(message.android == nil)
    }
}
