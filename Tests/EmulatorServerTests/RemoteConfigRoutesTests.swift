import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import FunctionsBuiltins
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Remote Config routes")
struct RemoteConfigRoutesTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let template = #"""
        {"conditions": [{"name": "ios", "expression": "device.os == 'ios'"}],
         "parameters": {"welcome": {"defaultValue": {"value": "hi"}, "conditionalValues": {"ios": {"value": "hey"}}}},
         "version": {"description": "first"}}
        """#

    static func json(_ response: TestResponse) -> JSONValue? {
        try? JSONValue(parsing: Data(response.body.readableBytesView))
    }

    static func headers(_ extra: HTTPFields) -> HTTPFields {
        var headers = owner
        headers.append(contentsOf: extra)
        return headers
    }

    @Test("publishes with If-Match, answers ETags, and refuses missing or stale ETags with 412")
    func publishAndETags() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            let empty = try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .get,
                headers: Self.owner) { response in
                #expect(response.status == .ok)
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put, headers: Self.owner,
                body: ByteBuffer(string: Self.template)) { response in
                #expect(response.status == .preconditionFailed)
                #expect(Self.json(response)?["error"]?["status"] == "FAILED_PRECONDITION")
                #expect(Self.json(response)?["error"]?["code"] == 412)
            }
            let etag = try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put,
                headers: Self.headers([.ifMatch: empty]), body: ByteBuffer(string: Self.template)) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response)?["version"]?["versionNumber"] == "1")
                #expect(Self.json(response)?["version"]?["updateType"] == "INCREMENTAL_UPDATE")
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put,
                headers: Self.headers([.ifMatch: empty]), body: ByteBuffer(string: Self.template)) { response in
                #expect(response.status == .preconditionFailed)
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig?validate_only=true", method: .put,
                headers: Self.headers([.ifMatch: etag]), body: ByteBuffer(string: Self.template)) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put,
                headers: Self.headers([.ifMatch: "*"]), body: ByteBuffer(string: Self.template)) { response in
                #expect(Self.json(response)?["version"]?["updateType"] == "FORCED_UPDATE")
                #expect(Self.json(response)?["version"]?["versionNumber"] == "2")
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put,
                headers: Self.headers([.ifMatch: "*"]),
                body: ByteBuffer(string: #"{"parameters": {"bad key!": {"defaultValue": {"value": "x"}}}}"#)) {
                response in
                #expect(response.status == .badRequest)
                #expect(Self.json(response)?["error"]?["status"] == "INVALID_ARGUMENT")
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test("lists versions, reads one, rolls back, and downloads defaults")
    func versionsAndDefaults() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            for _ in 0..<3 {
                try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put,
                    headers: Self.headers([.ifMatch: "*"]), body: ByteBuffer(string: Self.template)) { _ in }
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig:listVersions?pageSize=2", method: .get,
                headers: Self.owner) { response in
                let body = Self.json(response)
                #expect(body?["versions"]?.arrayValue?.map { $0["versionNumber"] } == ["3", "2"])
                #expect(body?["nextPageToken"]?.stringValue != nil)
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig:listVersions?pageSize=0", method: .get,
                headers: Self.owner) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig?versionNumber=1", method: .get,
                headers: Self.owner) { response in
                #expect(Self.json(response)?["version"]?["versionNumber"] == "1")
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig:rollback", method: .post,
                headers: Self.owner, body: ByteBuffer(string: #"{"versionNumber": "1"}"#)) { response in
                #expect(Self.json(response)?["version"]?["updateType"] == "ROLLBACK")
                #expect(Self.json(response)?["version"]?["rollbackSource"] == "1")
                #expect(response.headers[.eTag] != nil)
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig:rollback", method: .post,
                headers: Self.owner, body: ByteBuffer(string: #"{"versionNumber": 99}"#)) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig:downloadDefaults?format=JSON", method: .get,
                headers: Self.owner) { response in
                #expect(Self.json(response) == ["welcome": "hi"])
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig:downloadDefaults?format=XML", method: .get,
                headers: Self.owner) { response in
                #expect(String(buffer: response.body).contains("<key>welcome</key>"))
            }
        }
    }

    @Test("a client fetch gets the values for its device and the version as a string")
    func fetch() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:fetch", method: .post,
                body: ByteBuffer(string: #"{"app_instance_id": "fid1", "app_id": "1:1:ios:a"}"#)) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response)?["state"] == "NO_TEMPLATE")
            }
            try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put,
                headers: Self.headers([.ifMatch: "*"]), body: ByteBuffer(string: Self.template)) { _ in }
            for (appID, value) in [("1:1:ios:a", "hey"), ("1:1:android:a", "hi")] {
                try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:fetch", method: .post,
                    body: ByteBuffer(string: #"{"app_instance_id": "fid1", "app_id": "\#(appID)"}"#)) { response in
                    #expect(Self.json(response) == ["state": "UPDATE", "entries": ["welcome": .string(value)],
                        "templateVersion": "1"])
                    #expect(response.headers[.eTag] != nil)
                }
            }
        }
    }

    @Test("a publish over HTTP puts CONFIG_STATE: STALE in a PUSH_RC device's inbox")
    func staleLoopOverHTTP() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await emulator.withRunning {
            var functions = FunctionRegistry()
            functions.use(PushConfig(topic: "PUSH_RC"))
            try await emulator.deploy(functions)
            let token = try await emulator.messaging.registerDevice(platform: "ios")
            _ = try await emulator.messaging.subscribe(tokens: [token], to: "PUSH_RC")
            let server = EmulatorServer(emulator: emulator)
            try await Application(router: server.router()).test(.router) { client in
                try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put,
                    headers: Self.headers([.ifMatch: "*"]), body: ByteBuffer(string: Self.template)) {
                    #expect($0.status == .ok)
                }
                await emulator.waitUntilIdle()
                try await client.execute(uri: "/emulator/v1/projects/demo/devices/\(token)/messages", method: .get) {
                    response in
                    #expect(Self.json(response)?["messages"]?.arrayValue?.map { $0["data"] } == [["CONFIG_STATE": "STALE"]])
                }
            }
        }
    }
}
