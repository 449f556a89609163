import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Remote Config client fetch")
struct RemoteConfigFetchRoutesTests {
    static let template = #"""
        {"conditions": [
            {"name": "gold",
             "expression": "app.userProperty['tier'].exactlyMatches(['gold']) && device.country in ['US']"},
            {"name": "levelled", "expression": "app.customSignal['level'] >= 3"},
            {"name": "ios", "expression": "device.os == 'ios'"}],
         "parameters": {
            "banner": {"defaultValue": {"value": "none"}, "conditionalValues": {"gold": {"value": "gold"}}},
            "gate": {"defaultValue": {"value": "closed"}, "conditionalValues": {"levelled": {"value": "open"}}},
            "platform": {"defaultValue": {"value": "other"}, "conditionalValues": {"ios": {"value": "ios"}}}}}
        """#

    /// What RCNConfigSettings writes: brace-wrapped, unquoted keys, single-quoted strings, real JSON
    /// objects for the user properties and custom signals.
    static let iosBody = """
        {app_instance_id:'fid-ios-1', app_instance_id_token:'fis-token', app_id:'1:1234:ios:abcd', \
        country_code:'US', language_code:'en-US', platform_version:'17.5', time_zone:'America/New_York', \
        package_name:'com.example.app', app_version:'2.1.0', app_build:'210', sdk_version:'11.4.0', \
        first_open_time:'2024-01-01T00:00:00.000Z', analytics_user_properties:{"tier":"gold"}, \
        custom_signals:{"level":5}}
        """

    static func server() async throws -> EmulatorServer {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await server.emulator.remoteConfig.publish(RemoteConfigTemplate.decode(from: Data(template.utf8)), ifMatch: "*")
        return server
    }

    static func json(_ response: TestResponse) -> JSONValue? {
        try? JSONValue(parsing: Data(response.body.readableBytesView))
    }

    @Test("a gzipped iOS lenient body is evaluated, and its ETag as If-None-Match answers NO_CHANGE")
    func gzippedLenientBody() async throws {
        let server = try await Self.server()
        let headers: HTTPFields = [.contentType: "application/json", .contentEncoding: "gzip", .acceptEncoding: "gzip"]
        try await Application(router: server.router()).test(.router) { client in
            let etag = try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:fetch?key=k", method: .post,
                headers: headers, body: ByteBuffer(bytes: TestGzip.compress(Self.iosBody))) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response) == [
                    "state": "UPDATE",
                    "entries": ["banner": "gold", "gate": "open", "platform": "ios"],
                    "templateVersion": "1",
                ])
                return try #require(response.headers[.eTag])
            }
            var again = headers
            again[.ifNoneMatch] = etag
            try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:fetch", method: .post,
                headers: again, body: ByteBuffer(bytes: TestGzip.compress(Self.iosBody))) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response) == ["state": "NO_CHANGE", "entries": [:], "templateVersion": "1"])
                #expect(response.headers[.eTag] == etag)
            }
        }
    }

    @Test("a plain JSON body is accepted even when Content-Encoding claims gzip (the Web SDK)")
    func plainJSONBody() async throws {
        let server = try await Self.server()
        let body = #"{"sdk_version": "0.4.0", "app_instance_id": "fid-web", "app_instance_id_token": "t", "#
            + #""app_id": "1:1234:web:abcd", "language_code": "en-US", "custom_signals": {"level": "1"}}"#
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:fetch", method: .post,
                headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                body: ByteBuffer(string: body)) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response) == [
                    "state": "UPDATE",
                    "entries": ["banner": "none", "gate": "closed", "platform": "other"],
                    "templateVersion": "1",
                ])
                #expect(response.headers[.eTag] != nil)
            }
        }
    }

    @Test("the project number form reaches the emulator's project, and other namespaces have no template")
    func projectNumberAndNamespaces() async throws {
        let server = try await Self.server()
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/v1/projects/123456789012/namespaces/firebase:fetch", method: .post,
                body: ByteBuffer(string: #"{"app_instance_id": "fid", "app_id": "1:1:android:a"}"#)) { response in
                #expect(Self.json(response)?["state"] == "UPDATE")
                #expect(Self.json(response)?["templateVersion"] == "1")
            }
            try await client.execute(uri: "/v1/projects/demo/namespaces/fireperf:fetch", method: .post,
                body: ByteBuffer(string: #"{"app_instance_id": "fid"}"#)) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response) == ["state": "NO_TEMPLATE", "entries": [:], "templateVersion": "0"])
            }
            try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:unknownMethod", method: .post,
                body: ByteBuffer(string: "{}")) { #expect($0.status == .notFound) }
        }
    }

    @Test("a throttled instance gets 429 with the Google error body")
    func throttled() async throws {
        let server = try await Self.server()
        server.emulator.remoteConfig.setFetchLimit(RemoteConfigFetchLimit(count: 1, window: .seconds(3600)))
        try await Application(router: server.router()).test(.router) { client in
            let body = ByteBuffer(string: #"{"app_instance_id": "fid-throttled"}"#)
            try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:fetch", method: .post, body: body) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:fetch", method: .post, body: body) {
                response in
                #expect(response.status == .tooManyRequests)
                let error = Self.json(response)?["error"]
                #expect(error?["code"] == 429)
                #expect(error?["status"] == "RESOURCE_EXHAUSTED")
                #expect(error?["message"]?.stringValue?.hasPrefix("[THROTTLED]") == true)
            }
        }
    }

    @Test("bodies that are not an object, not JSON, or corrupt gzip get 400 INVALID_ARGUMENT")
    func badBodies() async throws {
        let server = try await Self.server()
        var corrupt = Data([0x1f, 0x8b])
        corrupt.append(Data("not really gzip".utf8))
        let bodies: [ByteBuffer] = [
            ByteBuffer(string: "[1, 2]"), ByteBuffer(string: "{app_id: 'unterminated}"),
            ByteBuffer(string: "hello"), ByteBuffer(bytes: corrupt),
        ]
        try await Application(router: server.router()).test(.router) { client in
            for body in bodies {
                try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:fetch", method: .post,
                    body: body) { response in
                    #expect(response.status == .badRequest)
                    #expect(Self.json(response)?["error"]?["status"] == "INVALID_ARGUMENT")
                }
            }
        }
    }

    @Test("a small gzipped body that inflates past the body limit gets 413")
    func gzipBomb() async throws {
        let server = EmulatorServer(
            emulator: try Emulator(project: "demo", directory: nil), configuration: .init(maxBodySize: 4096))
        let body = TestGzip.compress("{\"pad\": \"" + String(repeating: "a", count: 100_000) + "\"}")
        #expect(body.count < 4096)
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:fetch", method: .post,
                body: ByteBuffer(bytes: body)) { response in
                #expect(response.status == .contentTooLarge)
                #expect(Self.json(response)?["error"]?["status"] == "RESOURCE_EXHAUSTED")
            }
        }
    }
}
