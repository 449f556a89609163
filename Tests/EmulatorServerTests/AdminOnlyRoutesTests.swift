import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// One middleware decides which routes need the owner credential; each API family refuses in its
/// own error dialect, and the routes a device calls for itself stay open.
@Suite("Admin-only routes")
struct AdminOnlyRoutesTests {
    static func json(_ response: TestResponse) -> JSONValue? {
        try? JSONValue(parsing: Data(response.body.readableBytesView))
    }

    @Test(
        "Admin APIs refuse a missing credential and a foreign origin",
        arguments: [
            (HTTPRequest.Method.get, "/v1/projects/demo/remoteConfig"),
            (.put, "/v1/projects/demo/remoteConfig"),
            (.get, "/v1/projects/demo/remoteConfig:listVersions"),
            (.post, "/v1/projects/demo/remoteConfig:rollback"),
            (.get, "/v1/projects/demo/namespaces/firebase-server/remoteConfig"),
            (.post, "/v1/projects/demo/messages:send"),
            (.post, "/v1/projects/demo/registrations/t/topicSubscriptions"),
            (.post, "/emulator/v1/projects/demo/deadLetters:replay"),
            (.post, "/emulator/v1/projects/demo/export"),
        ]
    )
    func googleDialect(method: HTTPRequest.Method, path: String) async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: path, method: method, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .unauthorized)
                #expect(Self.json(response)?["error"]?["status"] == "UNAUTHENTICATED")
            }
            let foreign: HTTPFields = [.authorization: "Bearer owner", .origin: "https://evil.example"]
            try await client.execute(uri: path, method: method, headers: foreign, body: ByteBuffer(string: "{}")) {
                #expect($0.status == .forbidden)
                #expect(Self.json($0)?["error"]?["status"] == "PERMISSION_DENIED")
            }
        }
    }

    @Test("The owner credential is a bearer token, scheme and token in any case, or a Google OAuth token",
        arguments: [("Bearer owner", true), ("bearer OWNER", true), ("BEARER Owner", true), ("Bearer ya29.a0Af", true),
            ("Bearer owners", false), ("Bearer own", false), ("Basic owner", false), ("Bearer", false),
            ("Bearerowner", false), ("Bearer  owner", false), ("Bearer YA29.x", false)])
    func ownerCredential(authorization: String, admits: Bool) async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .get,
                headers: [.authorization: authorization]) { response in
                #expect((response.status == .ok) == admits, "\(authorization): \(response.status)")
            }
        }
    }

    @Test("Instance ID and Identity Toolkit refuse in their own dialects")
    func ownDialects() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/iid/v1:batchImport", method: .post, body: ByteBuffer(string: "{}")) {
                #expect($0.status == .unauthorized)
                #expect(Self.json($0) == ["error": "UNAUTHENTICATED"])
            }
            let batchCreate = "/identitytoolkit.googleapis.com/v1/projects/demo/accounts:batchCreate"
            try await client.execute(uri: batchCreate, method: .post, body: ByteBuffer(string: "{}")) {
                #expect($0.status == .forbidden)
                #expect(Self.json($0)?["error"]?["message"]?.stringValue?.hasPrefix("INSUFFICIENT_PERMISSION") == true)
                #expect(Self.json($0)?["error"]?["errors"]?.arrayValue?.first?["reason"] == "invalid")
            }
            try await client.execute(uri: batchCreate, method: .post, headers: [.authorization: "Bearer nope"],
                body: ByteBuffer(string: "{}")) {
                #expect($0.status == .unauthorized)
            }
        }
    }

    @Test("what a device does for itself needs no credential")
    func deviceRoutesStayOpen() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/emulator/v1/projects/demo/devices", method: .post,
                body: ByteBuffer(string: #"{"platform": "ios"}"#)) { #expect($0.status == .ok) }
            let fetch = #"{"appInstanceId": "i1", "appId": "1:1:ios:1", "sdkVersion": "11.0.0"}"#
            try await client.execute(uri: "/v1/projects/demo/namespaces/firebase:fetch", method: .post,
                headers: [.contentType: "application/json"], body: ByteBuffer(string: fetch)) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/deadLetters", method: .get) {
                #expect($0.status == .ok)
            }
            // Database REST paths that look like Admin routes are the database's.
            for path in ["/iid/anything.json", "/v1/projects/demo/remoteConfig.json"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .ok, "\(path)") }
            }
        }
    }
}
