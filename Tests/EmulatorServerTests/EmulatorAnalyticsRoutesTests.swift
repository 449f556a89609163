import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Analytics routes")
struct EmulatorAnalyticsRoutesTests {
    static let instance = "0123456789abcdef0123456789abcdef"

    static func json(_ response: TestResponse) -> JSONValue? {
        try? JSONValue(parsing: Data(response.body.readableBytesView))
    }

    @Test("logs a Measurement Protocol request and reads the events back, filtered and limited")
    func logAndRead() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let body = #"""
            {"app_instance_id": "\#(Self.instance)", "user_id": "u1",
             "user_properties": {"tier": {"value": "gold"}},
             "events": [{"name": "level_up", "params": {"level": 2}},
                        {"name": "select_content", "params": {"content_type": "image"}},
                        {"name": "level_up", "params": {"level": 3}}]}
            """#
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/emulator/v1/projects/demo/apps/1:1234:ios:abcd/events", method: .post,
                body: ByteBuffer(string: body)) { response in
                #expect(response.status == .ok)
                let events = Self.json(response)?["events"]?.arrayValue
                #expect(events?.map { $0["name"] } == ["level_up", "select_content", "level_up"])
                #expect(events?.first?["params"] == ["level": 2])
                #expect(events?.first?["appInstanceId"] == .string(Self.instance))
                #expect(events?.first?["userId"] == "u1")
                #expect(events?.first?["timestamp"]?.stringValue?.hasSuffix("Z") == true)
            }
            let query = "appInstanceId=\(Self.instance)&name=level_up&limit=1"
            try await client.execute(uri: "/emulator/v1/projects/demo/analytics/events?\(query)", method: .get) {
                response in
                #expect(response.status == .ok)
                let events = Self.json(response)?["events"]?.arrayValue
                #expect(events?.map { $0["params"] } == [["level": 3]])
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/analytics:log?firebase_app_id=1:1234:ios:abcd",
                method: .post,
                body: ByteBuffer(string: #"{"app_instance_id": "\#(Self.instance)", "events": [{"name": "tap"}]}"#)) {
                #expect(Self.json($0)?["events"]?.arrayValue?.map { $0["name"] } == ["tap"])
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/analytics/events?appInstanceId=\(Self.instance)",
                method: .get) { #expect(Self.json($0)?["events"]?.arrayValue?.count == 4) }
            // Without an instance: every instance's events (the console's Analytics page).
            try await client.execute(uri: "/emulator/v1/projects/demo/analytics:log?firebase_app_id=1:1234:ios:abcd",
                method: .post, body: ByteBuffer(string: #"{"app_instance_id": "fedcba9876543210fedcba9876543210", "events": [{"name": "tap"}]}"#)) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/analytics/events?name=tap", method: .get) {
                #expect(Self.json($0)?["events"]?.arrayValue?.compactMap { $0["appInstanceId"]?.stringValue }
                    == [Self.instance, "fedcba9876543210fedcba9876543210"])
            }
        }
        #expect(try server.emulator.analytics.userProperties(appInstanceId: Self.instance)["tier"] != nil)
    }

    @Test("invalid events and queries get 400 INVALID_ARGUMENT and store nothing")
    func errors() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let reserved = #"{"app_instance_id": "\#(Self.instance)", "#
            + #""events": [{"name": "ok_event"}, {"name": "first_open"}]}"#
        try await Application(router: server.router()).test(.router) { client in
            for body in [reserved, #"{"events": []}"#, "[]"] {
                try await client.execute(uri: "/emulator/v1/projects/demo/apps/1:1:ios:a/events", method: .post,
                    body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest)
                    #expect(Self.json(response)?["error"]?["status"] == "INVALID_ARGUMENT")
                }
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/analytics:log", method: .post,
                body: ByteBuffer(string: #"{"app_instance_id": "\#(Self.instance)", "events": [{"name": "a"}]}"#)) {
                response in
                #expect(response.status == .badRequest)
                #expect(Self.json(response)?["error"]?["message"]?.stringValue?.contains("firebase_app_id") == true)
            }
            for query in ["?appInstanceId=", "?appInstanceId=\(Self.instance)&limit=many"] {
                try await client.execute(uri: "/emulator/v1/projects/demo/analytics/events\(query)", method: .get) {
                    response in
                    #expect(response.status == .badRequest)
                    #expect(Self.json(response)?["error"]?["status"] == "INVALID_ARGUMENT")
                }
            }
        }
        #expect(try server.emulator.analytics.events(appInstanceId: Self.instance).isEmpty)
    }
}
