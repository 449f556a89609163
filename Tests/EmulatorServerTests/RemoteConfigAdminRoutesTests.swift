import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The template requests the Node Admin SDK sends, beyond the basics of ``RemoteConfigRoutesTests``.
@Suite("Remote Config admin routes")
struct RemoteConfigAdminRoutesTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner", .acceptEncoding: "gzip"]
    static let template =
        #"{"parameters": {"welcome": {"defaultValue": {"value": "hi"}}}, "version": {"description": "d"}}"#

    static func json(_ response: TestResponse) -> JSONValue? {
        try? JSONValue(parsing: Data(response.body.readableBytesView))
    }

    static func headers(_ extra: HTTPFields) -> HTTPFields {
        var headers = owner
        headers.append(contentsOf: extra)
        return headers
    }

    @Test("the namespaced forms keep the client and server templates apart, each with ETags")
    func namespaces() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let base = "/v1/projects/demo/namespaces"
        try await Application(router: server.router()).test(.router) { client in
            let etag = try await client.execute(uri: "\(base)/firebase-server/remoteConfig", method: .get,
                headers: Self.owner) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response)?["parameters"] == nil || Self.json(response)?["parameters"] == [:])
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "\(base)/firebase-server/remoteConfig", method: .put,
                headers: Self.headers([.ifMatch: etag]), body: ByteBuffer(string: Self.template)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] != nil)
                #expect(Self.json(response)?["version"]?["versionNumber"] == "1")
            }
            try await client.execute(uri: "\(base)/firebase/remoteConfig", method: .get, headers: Self.owner) {
                response in
                #expect(response.headers[.eTag] != nil)
                #expect(Self.json(response)?["parameters"]?["welcome"] == nil)
            }
            try await client.execute(uri: "\(base)/firebase-server/remoteConfig:listVersions", method: .get,
                headers: Self.owner) { response in
                #expect(Self.json(response)?["versions"]?.arrayValue?.map { $0["versionNumber"] } == ["1"])
            }
            try await client.execute(uri: "\(base)/fireperf/remoteConfig", method: .get, headers: Self.owner) {
                response in
                #expect(response.status == .badRequest)
                #expect(Self.json(response)?["error"]?["status"] == "INVALID_ARGUMENT")
            }
        }
    }

    @Test("validateOnly (either spelling) stores nothing; a PUT without the credential is 401")
    func validateOnly() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            for query in ["validateOnly=true", "validate_only=true"] {
                try await client.execute(uri: "/v1/projects/demo/remoteConfig?\(query)", method: .put,
                    headers: Self.headers([.ifMatch: "*"]), body: ByteBuffer(string: Self.template)) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.eTag] != nil)
                }
            }
            #expect(server.emulator.remoteConfig.latestVersion() == 0)
            try await client.execute(uri: "/v1/projects/demo/remoteConfig", method: .put,
                headers: [.ifMatch: "*"], body: ByteBuffer(string: Self.template)) { response in
                #expect(response.status == .unauthorized)
                #expect(Self.json(response)?["error"]?["status"] == "UNAUTHENTICATED")
                #expect(Self.json(response)?["error"]?["code"] == 401)
            }
        }
    }

    @Test("lists versions newest first by endVersionNumber, time range and page token")
    func listVersions() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        for _ in 0..<4 {
            try await server.emulator.remoteConfig.publish(RemoteConfigTemplate.decode(from: Data(Self.template.utf8)),
                ifMatch: "*")
        }
        let list = "/v1/projects/demo/remoteConfig:listVersions"
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "\(list)?endVersionNumber=3", method: .get, headers: Self.owner) {
                #expect(Self.json($0)?["versions"]?.arrayValue?.map { $0["versionNumber"] } == ["3", "2", "1"])
            }
            let token = try await client.execute(uri: "\(list)?pageSize=3", method: .get, headers: Self.owner) {
                response in
                #expect(Self.json(response)?["versions"]?.arrayValue?.map { $0["versionNumber"] } == ["4", "3", "2"])
                return try #require(Self.json(response)?["nextPageToken"]?.stringValue)
            }
            try await client.execute(uri: "\(list)?pageSize=3&pageToken=\(token)", method: .get, headers: Self.owner) {
                response in
                #expect(Self.json(response)?["versions"]?.arrayValue?.map { $0["versionNumber"] } == ["1"])
                #expect(Self.json(response)?["nextPageToken"] == nil)
            }
            let range = "startTime=2000-01-01T00:00:00Z&endTime=2001-01-01T00:00:00.123456789Z"
            try await client.execute(uri: "\(list)?\(range)", method: .get, headers: Self.owner) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response)?["versions"]?.arrayValue?.isEmpty ?? true)
            }
            for bad in ["startTime=yesterday", "endVersionNumber=0", "pageSize=301", "endVersionNumber=x"] {
                try await client.execute(uri: "\(list)?\(bad)", method: .get, headers: Self.owner) { response in
                    #expect(response.status == .badRequest)
                    #expect(Self.json(response)?["error"]?["status"] == "INVALID_ARGUMENT")
                }
            }
        }
    }

    @Test("rolls back by number, and downloads defaults with the right content types")
    func rollbackAndDefaults() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        for _ in 0..<2 {
            try await server.emulator.remoteConfig.publish(RemoteConfigTemplate.decode(from: Data(Self.template.utf8)),
                ifMatch: "*")
        }
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/v1/projects/demo/remoteConfig:rollback", method: .post,
                headers: Self.owner, body: ByteBuffer(string: #"{"versionNumber": 1}"#)) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response)?["version"]?["versionNumber"] == "3")
                #expect(Self.json(response)?["version"]?["rollbackSource"] == "1")
                #expect(response.headers[.eTag] != nil)
            }
            for body in [#"{}"#, #"{"versionNumber": "one"}"#] {
                try await client.execute(uri: "/v1/projects/demo/remoteConfig:rollback", method: .post,
                    headers: Self.owner, body: ByteBuffer(string: body)) { #expect($0.status == .badRequest) }
            }
            let formats = [("JSON", "application/json"), ("PLIST", "application/xml"), ("XML", "application/xml")]
            for (format, contentType) in formats {
                try await client.execute(uri: "/v1/projects/demo/remoteConfig:downloadDefaults?format=\(format)",
                    method: .get, headers: Self.owner) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == contentType)
                    #expect(String(buffer: response.body).contains("welcome"))
                }
            }
            for query in ["", "?format=FORMAT_UNSPECIFIED", "?format=YAML"] {
                try await client.execute(uri: "/v1/projects/demo/remoteConfig:downloadDefaults\(query)",
                    method: .get, headers: Self.owner) { #expect($0.status == .badRequest) }
            }
        }
    }
}
