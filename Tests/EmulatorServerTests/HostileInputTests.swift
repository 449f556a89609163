import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Requests that must be refused without touching what is stored: lenient JSON, misspelt
/// template fields, privileged emulator routes without the owner credential.
@Suite("Hostile input is refused and changes nothing")
struct HostileInputTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner", .contentType: "application/json"]
    static let forced: HTTPFields = [.authorization: "Bearer owner", .contentType: "application/json", .ifMatch: "*"]

    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String = "",
        headers: HTTPFields = owner
    ) async throws -> (HTTPResponse.Status, JSONValue, String) {
        try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: body)) {
            let text = String(buffer: $0.body)
            return ($0.status, (try? JSONValue(parsing: text)) ?? .null, text)
        }
    }

    @Test("JSON that is not strict RFC 8259 is a 400 on every service, and the stored data stays", arguments: [
        #"{"a": 1,}"#, "[1,]", #"{"a": 1} // note"#, "{'a': 1}", #"{"a": NaN}"#, #"{"a": 01}"#, #"{"a": 1e400}"#,
        "\u{FEFF}{}", String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    ])
    func strictJSON(body: String) async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo-project", directory: nil))
        let database = server.emulator.database
        let ns = "demo-project-default-rtdb"
        try await database.set(namespace: ns, path: "users", value: ["ada": ["score": 10]])
        try await Application(router: server.router()).test(.router) { client in
            for (method, uri) in [
                (HTTPRequest.Method.put, "/users.json?ns=\(ns)"), (.patch, "/users.json?ns=\(ns)"),
                (.post, "/users.json?ns=\(ns)"), (.put, "/v1/projects/demo-project/remoteConfig"),
                (.post, "/v1/projects/demo-project/messages:send"),
                (.post, "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts"),
            ] {
                var headers = Self.owner
                if uri.contains("remoteConfig") { headers[.ifMatch] = "*" }
                let (status, _, text) = try await Self.send(client, method, uri, body, headers: headers)
                #expect(status == .badRequest, "\(method) \(uri): \(text)")
            }
        }
        #expect(try database.get(namespace: ns, path: "users") == ["ada": ["score": 10]])
        #expect(try server.emulator.remoteConfig.template(project: "demo-project").template.versionNumber == 0)
        #expect(try server.emulator.auth.listUsers(maxResults: 10, pageToken: nil).users.isEmpty)
    }

    @Test("a template publish with an unknown field is refused with 'Unknown name'; snake_case names are read")
    func unknownTemplateField() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let uri = "/v1/projects/demo/remoteConfig"
        let headers = Self.forced
        try await Application(router: server.router()).test(.router) { client in
            var (status, _, _) = try await Self.send(client, .put, uri,
                #"{"parameters": {"welcome": {"defaultValue": {"value": "hi"}}}}"#, headers: headers)
            #expect(status == .ok)
            let cases = [
                (#"{"paramters": {}}"#, "Unknown name \"paramters\" at 'remote_config'"),
                (#"{"parameters": {"w": {"defaultValu": {"value": "x"}}}}"#, "at 'remote_config.parameters[w]'"),
                (#"{"conditions": [{"name": "c", "expresion": "true"}]}"#, "at 'remote_config.conditions[0]'"),
                (#"{"version": {"updateUser": {"mail": "a@b"}}}"#, "at 'remote_config.version.updateUser'"),
            ]
            for (body, expected) in cases {
                let (status, answer, text) = try await Self.send(client, .put, uri, body, headers: headers)
                #expect(status == .badRequest, "\(body)")
                #expect(answer["error"]?["status"] == "INVALID_ARGUMENT")
                #expect(text.contains(expected.replacingOccurrences(of: "\"", with: "\\\"")), "\(text)")
            }
            (status, _, _) = try await Self.send(client, .put, uri,
                #"{"parameters": {"welcome": {"default_value": {"value": "snake"}, "value_type": "STRING"}}}"#,
                headers: headers)
            #expect(status == .ok)
        }
        let current = try server.emulator.remoteConfig.template(project: "demo").template
        #expect(current.versionNumber == 2, "no version was published for a refused body")
        #expect(current.parameters["welcome"]?.defaultValue == .value("snake"))
    }

    @Test("the emulator's state-changing routes need the owner credential and leave state as it was", arguments: [
        (HTTPRequest.Method.post, "/emulator/v1/projects/demo/deployments", #"{"binary": "/bin/sh"}"#),
        (.post, "/emulator/v1/projects/demo/functions/pushConfig:trigger", #"{"event": {}}"#),
        (.post, "/emulator/v1/projects/demo/deadLetters:replay", #"{"id": "x"}"#),
        (.put, "/emulator/v1/projects/demo/remoteConfig:fetchLimit", #"{"count": 1, "windowSeconds": 60}"#),
        (.post, "/emulator/v1/projects/demo/export", #"{"path": "/tmp/stolen"}"#),
        (.post, "//emulator//v1/projects/demo/export", #"{"path": "/tmp/stolen"}"#),
        (.delete, "/emulator/v1/projects/demo/accounts", ""),
        (.patch, "/emulator/v1/projects/demo/config", #"{"signIn": {"allowDuplicateEmails": true}}"#),
    ])
    func adminOnly(method: HTTPRequest.Method, uri: String, body: String) async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        _ = try await server.emulator.auth.signUp(AuthSignUpRequest(email: "ada@example.com", password: "secret1"),
            privileged: true)
        try await Application(router: server.router()).test(.router) { client in
            let (status, answer, _) = try await Self.send(client, method, uri, body,
                headers: [.contentType: "application/json"])
            #expect(status == .unauthorized)
            #expect(answer["error"]?["status"] == "UNAUTHENTICATED")
            let (foreign, _, _) = try await Self.send(client, method, uri, body,
                headers: [.authorization: "Bearer owner", .contentType: "application/json", .origin: "https://evil.example"])
            #expect(foreign == .forbidden)
        }
        #expect(try server.emulator.auth.listUsers(maxResults: 10, pageToken: nil).users.count == 1)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/stolen/emulator-export.json"))
        #expect(server.deployments.deployment == nil)
    }

    @Test("the owner credential is refused from a web page of another origin on every route; client calls from it are not")
    func ownerCredentialNotFromForeignPages() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let uid = try await server.emulator.auth.signUp(AuthSignUpRequest(email: "ada@example.com", password: "secret1"),
            privileged: true).localId
        let foreign: HTTPFields = [.authorization: "Bearer owner", .contentType: "application/json",
            .origin: "https://evil.example"]
        try await Application(router: server.router()).test(.router) { client in
            let (update, answer, _) = try await Self.send(client, .post, "/identitytoolkit.googleapis.com/v1/accounts:update",
                #"{"localId": "\#(uid)", "customAttributes": "{\"admin\": true}"}"#, headers: foreign)
            #expect(update == .forbidden)
            #expect(answer["error"]?["message"]?.stringValue?.contains("another origin") == true)
            let (rules, rulesAnswer, _) = try await Self.send(client, .put, "/.settings/rules.json",
                #"{"rules": {".read": true, ".write": true}}"#, headers: foreign)
            #expect(rules == .forbidden)
            #expect(rulesAnswer["error"]?.stringValue?.contains("another origin") == true)
            let (write, _, _) = try await Self.send(client, .put, "/a.json", "1", headers: foreign)
            #expect(write == .forbidden)
            // A web app's own calls, from its origin, without the credential: as before.
            let (signUp, _, _) = try await Self.send(client, .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                #"{"email": "web@example.com", "password": "secret1"}"#,
                headers: [.contentType: "application/json", .origin: "http://localhost:5173"])
            #expect(signUp == .ok)
            let (open, _, _) = try await Self.send(client, .put, "/b.json", "2",
                headers: [.contentType: "application/json", .origin: "http://localhost:5173"])
            #expect(open == .ok)
        }
        #expect(try server.emulator.auth.listUsers(maxResults: 10, pageToken: nil).users.first { $0.localId == uid }?
            .customClaims.isEmpty == true, "no claim was set")
        #expect(try server.emulator.database.get(namespace: "demo-default-rtdb", path: "a") == .null)
    }

    @Test("device-side emulator routes stay open: registering a device, logging analytics")
    func deviceRoutesOpen() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            let (status, answer, _) = try await Self.send(client, .post, "/emulator/v1/projects/demo/devices",
                #"{"platform": "ios"}"#, headers: [.contentType: "application/json"])
            #expect(status == .ok)
            #expect(answer["token"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("identical reads answer identical bytes: object keys in byte order")
    func stableBytes() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let headers = Self.forced
        try await Application(router: server.router()).test(.router) { client in
            let params = (0..<40).map { #""p\#($0)": {"defaultValue": {"value": "\#($0)"}}"# }.joined(separator: ",")
            _ = try await Self.send(client, .put, "/v1/projects/demo/remoteConfig", "{\"parameters\": {\(params)}}",
                headers: headers)
            // Keys in byte order: the same bytes in this process, after a restart and on another machine.
            for uri in ["/v1/projects/demo/remoteConfig", "/v1/projects/demo/remoteConfig:listVersions"] {
                let (_, answer, text) = try await Self.send(client, .get, uri)
                #expect(text == answer.serialized(sortedKeys: true), "\(uri)")
            }
        }
    }
}
