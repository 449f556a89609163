import CloudFunctions
import Foundation
import Testing

/// `messaging:send` and `messaging:inbox` against a running emulator.
@Suite("functions messaging:*")
struct MessagingCommandsTests {
    @Test("a topic message reaches a subscribed device's inbox, and not an unsubscribed one")
    func sendAndInbox() async throws {
        let emulator = try RunningEmulator()
        let devices = "/emulator/v1/projects/demo-project/devices"
        let subscribed = try #require(try await emulator.request("POST", devices, ["platform": "ios"])["token"]?
            .stringValue)
        let other = try #require(try await emulator.request("POST", devices, [:])["token"]?.stringValue)
        try await emulator.request("POST", "/iid/v1:batchAdd",
            ["to": "/topics/PUSH_RC", "registration_tokens": [.string(subscribed)]])

        let sent = try emulator.cli("messaging:send", "--topic", "PUSH_RC", "--data", "CONFIG_STATE=STALE",
            "--content-available")
        #expect(sent.status == 0, "\(sent.errors)")
        #expect(sent.output.hasPrefix("projects/demo-project/messages/"))

        let inbox = try emulator.cli("messaging:inbox", subscribed)
        #expect(inbox.output.contains("topic PUSH_RC\tdata {\"CONFIG_STATE\":\"STALE\"}"), "\(inbox.output)")
        let json = try JSONValue(parsing: Data(try emulator.cli("messaging:inbox", subscribed, "--json").output.utf8))
        #expect(json["messages"]?.arrayValue?.first?["apns"]?["payload"]?["aps"]?["content-available"] == 1)
        #expect(try emulator.cli("messaging:inbox", other).output == "no messages for \(other)\n")
    }

    @Test("bad input: no target, two targets, a malformed data entry, an FCM validation error")
    func badInput() throws {
        let emulator = try RunningEmulator()
        let none = try emulator.cli("messaging:send", "--data", "a=b")
        #expect(none.status != 0)
        #expect(none.errors.contains("give exactly one of --topic, --token, --condition"))
        let two = try emulator.cli("messaging:send", "--topic", "a", "--token", "b")
        #expect(two.status != 0)
        let malformed = try emulator.cli("messaging:send", "--topic", "a", "--data", "novalue")
        #expect(malformed.errors.contains("--data takes KEY=VALUE"))
        let invalid = try emulator.cli("messaging:send", "--topic", "bad topic!", "--data", "a=b")
        #expect(invalid.status != 0)
        #expect(invalid.errors.contains("HTTP 400"), "\(invalid.errors)")
    }
}
