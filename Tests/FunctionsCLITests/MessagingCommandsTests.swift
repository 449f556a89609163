import CloudFunctions
import Foundation
import Testing

/// `messaging:send` and `messaging:inbox` against a running emulator.
@Suite("functions messaging:*", .timeLimit(.minutes(5)))
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
        // No key: refused (a bare = crashed the CLI).
        for entry in ["=", "=x"] {
            let keyless = try emulator.cli("messaging:send", "--topic", "a", "--data", entry)
            #expect(keyless.status != 0)
            #expect(keyless.errors.contains("--data takes KEY=VALUE with a key"), "\(keyless.errors)")
        }
        let mixed = try emulator.cli("messaging:send", "--message", "-", "--content-available")
        #expect(mixed.errors.contains("--message replaces the other message options"))
        let invalid = try emulator.cli("messaging:send", "--topic", "bad topic!", "--data", "a=b")
        #expect(invalid.status != 0)
        #expect(invalid.errors.contains("HTTP 400"), "\(invalid.errors)")
    }
}

/// `messaging:import --from parse`.
@Suite("functions messaging:import", .timeLimit(.minutes(5)))
struct MessagingImportTests {
    static let installations = #"""
        {"results": [
          {"objectId": "i1", "deviceType": "ios", "deviceToken": "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
           "channels": ["", "news"]},
          {"objectId": "i2", "deviceType": "ios", "deviceToken": "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100",
           "channels": ["news", "sports"]},
          {"objectId": "i3", "deviceType": "ios", "deviceToken": "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"},
          {"objectId": "a1", "deviceType": "android", "deviceToken": "APA91b-gcm-token", "channels": ["news"]}
        ]}
        """#

    @Test("iOS installations become FCM devices subscribed to their channels; a topic send reaches them")
    func importParse() async throws {
        let emulator = try RunningEmulator()
        let mapping = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: mapping) }
        let run = try emulator.cli("messaging:import", "-", "--application", "com.example.app", "-o", mapping.path,
            input: Self.installations)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "imported 3 iOS installations; topics: all (1), news (2), sports (1); "
            + "skipped 1 without an iOS device token\n")
        let tokens = try JSONValue(parsing: Data(contentsOf: mapping))
        let i1 = try #require(tokens["i1"]?.stringValue)
        let i2 = try #require(tokens["i2"]?.stringValue)
        let i3 = try #require(tokens["i3"]?.stringValue)
        #expect(try emulator.cli("messaging:send", "--topic", "news", "--data", "n=1").status == 0)
        #expect(try emulator.cli("messaging:inbox", i1).output.contains("topic news"))
        #expect(try emulator.cli("messaging:inbox", i2).output.contains("topic news"))
        #expect(try emulator.cli("messaging:inbox", i3).output == "no messages for \(i3)\n")

        // Run again (as after an import that stopped half-way): the same tokens, no new devices,
        // and one message per device still.
        let devices = try await emulator.request("GET", "/emulator/v1/projects/demo-project/devices")["devices"]?.arrayValue?.count
        #expect(devices == 3)
        let again = try emulator.cli("messaging:import", "-", "--application", "com.example.app", "-o", mapping.path,
            input: Self.installations)
        #expect(again.status == 0, "\(again.errors)")
        #expect(try JSONValue(parsing: Data(contentsOf: mapping)) == tokens)
        #expect(try await emulator.request("GET", "/emulator/v1/projects/demo-project/devices")["devices"]?.arrayValue?.count
            == devices)
        #expect(try emulator.cli("messaging:send", "--topic", "news", "--data", "n=2").status == 0)
        #expect(try emulator.cli("messaging:inbox", i1).output.components(separatedBy: "topic news").count == 3)
        // Another app's installation with the same APNs token is another device.
        let other = try emulator.cli("messaging:import", "-", "--application", "com.example.other", "-o", mapping.path,
            input: Self.installations)
        #expect(other.status == 0)
        #expect(try JSONValue(parsing: Data(contentsOf: mapping))["i1"]?.stringValue != i1)
    }

    @Test("bad APNs tokens and a missing bundle id are refused with the service's message")
    func badInput() throws {
        let emulator = try RunningEmulator()
        let bad = try emulator.cli("messaging:import", "-", "--application", "com.example.app",
            input: #"[{"objectId": "x", "deviceType": "ios", "deviceToken": "not-hex"}]"#)
        #expect(bad.status != 0)
        #expect(bad.errors.contains("apns_tokens[0] is not a hex APNs device token"), "\(bad.errors)")
        let noApp = try emulator.cli("messaging:import", "-", input: "[]")
        #expect(noApp.status != 0)
        #expect(noApp.errors.contains("--application"), "\(noApp.errors)")
    }
}
