import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import FunctionsBuiltins
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Emulator routes")
struct EmulatorRoutesTests {
    static func server() throws -> EmulatorServer {
        EmulatorServer(emulator: try Emulator(project: "demo-project", directory: nil))
    }

    static func json(_ response: TestResponse) throws -> JSONValue {
        try JSONValue(parsing: Data(response.body.readableBytesView))
    }

    @Test("registers a device and lists the messages it received")
    func devicesAndInbox() async throws {
        let server = try Self.server()
        let app = Application(router: server.router())
        try await app.test(.router) { client in
            let token = try await client.execute(uri: "/emulator/v1/projects/demo-project/devices", method: .post,
                body: ByteBuffer(string: #"{"platform": "ios"}"#)) { response in
                #expect(response.status == .ok)
                return try #require((try? Self.json(response))?["token"]?.stringValue)
            }
            _ = try await server.emulator.messaging.subscribe(tokens: [token], to: "PUSH_RC")
            try await server.emulator.messaging.send(PushConfig().message)
            try await client.execute(uri: "/emulator/v1/projects/demo-project/devices/\(token)/messages", method: .get) {
                response in
                #expect(response.status == .ok)
                let messages = try #require((try? Self.json(response))?["messages"]?.arrayValue)
                #expect(messages.count == 1)
                #expect(messages.first?["data"] == ["CONFIG_STATE": "STALE"])
                #expect(messages.first?["topic"] == "PUSH_RC")
                #expect(messages.first?["apns"]?["payload"]?["aps"]?["content-available"] == 1)
                #expect(messages.first?["sendTime"]?.stringValue != nil)
            }
            try await client.execute(uri: "/emulator/v1/projects/demo-project/devices/unknown/messages", method: .get) {
                response in
                #expect(response.status == .notFound)
                #expect((try? Self.json(response))?["error"]?["status"] == "NOT_FOUND")
            }
        }
    }

    @Test("refuses bodies over the limit and bodies that are not JSON, with Firebase error bodies")
    func badBodies() async throws {
        let server = EmulatorServer(
            emulator: try Emulator(project: "p", directory: nil),
            configuration: .init(maxBodySize: 16)
        )
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/emulator/v1/projects/p/devices", method: .post,
                body: ByteBuffer(string: String(repeating: " ", count: 64))) { response in
                #expect(response.status == .contentTooLarge)
                #expect((try? Self.json(response))?["error"]?["code"] == 413)
            }
            try await client.execute(uri: "/emulator/v1/projects/p/devices", method: .post,
                body: ByteBuffer(string: "{nope")) { response in
                #expect(response.status == .badRequest)
                #expect((try? Self.json(response))?["error"]?["status"] == "INVALID_ARGUMENT")
            }
        }
    }

    @Test("lists events with their deliveries, newest last")
    func events() async throws {
        let server = try Self.server()
        try await server.emulator.withRunning {
            var functions = FunctionRegistry()
            functions.use(PushConfig())
            try await server.emulator.deploy(functions)
            let template = try RemoteConfigTemplate.decode(from: Data(#"{"parameters": {"a": {"defaultValue": {"value": "1"}}}}"#.utf8))
            try await server.emulator.remoteConfig.publish(template, ifMatch: "*")
            await server.emulator.waitUntilIdle()
            try await Application(router: server.router()).test(.router) { client in
                try await client.execute(uri: "/emulator/v1/projects/demo-project/events", method: .get) { response in
                    let events = try #require((try? Self.json(response))?["events"]?.arrayValue)
                    #expect(events.count == 1)
                    #expect(events[0]["type"] == "google.firebase.remoteconfig.remoteConfig.v1.updated")
                    let delivery = try #require(events[0]["deliveries"]?.arrayValue?.first?.objectValue)
                    #expect(delivery["function"] == "pushConfig")
                    #expect(delivery["attempts"] == 1)
                    #expect(delivery["status"] == "succeeded")
                    #expect(delivery["lastError"] == .null)
                    // Every attempt, with when it started and how long it took.
                    let attempt = try #require(delivery["attemptLog"]?.arrayValue?.first)
                    #expect(delivery["attemptLog"]?.arrayValue?.count == 1)
                    #expect(attempt["attempt"] == 1)
                    #expect(attempt["outcome"] == "succeeded")
                    #expect(attempt["startedAt"]?.stringValue?.hasSuffix("Z") == true)
                    #expect((attempt["durationMs"]?.numberValue ?? -1) >= 0)
                }
            }
        }
    }

    @Test("serves on a free port of 127.0.0.1 and reports it when ready")
    func live() async throws {
        let server = try Self.server()
        let reported = Mutex<Int?>(nil)
        let answered = try await server.withRunning { base in
            #expect(base.host == "127.0.0.1")
            reported.withLock { $0 = base.port }
            // The reported address is where the server answers.
            let (data, response) = try await URLSession.shared.data(
                from: base.appendingPathComponent("emulator/v1/projects/demo-project/events"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            return String(decoding: data, as: UTF8.self)
        }
        #expect(answered == #"{"events":[]}"#)
        let port = try #require(reported.withLock { $0 })
        #expect(port > 0 && port != 4400)
    }
}
