import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Security rules through the REST routes: who a request acts as, what a denial looks like,
/// and that a denied request changes nothing.
@Suite("Database routes: security rules")
struct DatabaseRulesRoutesTests {
    static let ns = "demo-project-default-rtdb"
    static let rules = """
        {"rules": {
          "scores": {
            ".read": "auth != null",
            ".indexOn": ["score"],
            "$id": {
              ".write": "auth != null && (!data.exists() || data.child('uid').val() == auth.uid)",
              ".validate": "newData.child('uid').val() == auth.uid && newData.child('score').isNumber()"
            }
          }
        }}
        """

    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String = "",
        headers: HTTPFields = [:]
    ) async throws -> (HTTPResponse.Status, JSONValue) {
        try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: body)) {
            ($0.status, (try? JSONValue(parsing: String(buffer: $0.body))) ?? .null)
        }
    }

    static func server() async throws -> (EmulatorServer, ada: String, bob: String) {
        let server = EmulatorServer(emulator: try Emulator(project: "demo-project", directory: nil))
        server.emulator.database.rules = try DatabaseRules(text: rules)
        let auth = server.emulator.auth
        let ada = try await auth.signUp(AuthSignUpRequest(email: "ada@example.com", password: "secret1"), privileged: false)
        let bob = try await auth.signUp(AuthSignUpRequest(email: "bob@example.com", password: "secret1"), privileged: false)
        try await server.emulator.database.set(namespace: ns, path: "scores/s1", value: ["uid": .string(ada.localId),
            "score": 10])
        return (server, try #require(ada.idToken), try #require(bob.idToken))
    }

    @Test("a denied read or write is 401 {\"error\": \"Permission denied\"} and changes nothing")
    func denied() async throws {
        let (server, _, bob) = try await Self.server()
        try await Application(router: server.router()).test(.router) { client in
            var (status, body) = try await Self.send(client, .get, "/scores.json?ns=\(Self.ns)")
            #expect(status == .unauthorized)
            #expect(body == ["error": "Permission denied"])
            // Someone else's entry cannot be overwritten or deleted.
            (status, body) = try await Self.send(client, .put, "/scores/s1.json?ns=\(Self.ns)&auth=\(bob)",
                #"{"uid": "bob", "score": 99}"#)
            #expect(status == .unauthorized)
            (status, _) = try await Self.send(client, .delete, "/scores/s1.json?ns=\(Self.ns)",
                headers: [.authorization: "Bearer \(bob)"])
            #expect(status == .unauthorized)
            // A conditional write the rules refuse is 401, not a 412 that would show the current value.
            (status, body) = try await Self.send(client, .put, "/scores/s1.json?ns=\(Self.ns)&auth=\(bob)",
                #"{"uid": "bob", "score": 99}"#, headers: [.ifMatch: "stale"])
            #expect(status == .unauthorized)
            #expect(body == ["error": "Permission denied"])
            // Streaming reads are checked when they open.
            (status, body) = try await Self.send(client, .get, "/scores.json?ns=\(Self.ns)",
                headers: [.accept: "text/event-stream"])
            #expect(status == .unauthorized)
        }
        #expect(try server.emulator.database.get(namespace: Self.ns, path: "scores/s1")["score"] == 10)
    }

    @Test("a signed-in user (ID token in ?auth= or Authorization: Bearer) reads, queries and writes what the rules allow")
    func allowed() async throws {
        let (server, ada, bob) = try await Self.server()
        let bobID = try AuthIDToken(parsing: bob, projectId: "demo-project", now: Date(), checksExpiry: false).uid
        try await Application(router: server.router()).test(.router) { client in
            var (status, body) = try await Self.send(client, .get,
                "/scores.json?ns=\(Self.ns)&auth=\(ada)&orderBy=%22score%22&limitToFirst=1")
            #expect(status == .ok)
            #expect(body["s1"]?["score"] == 10)
            (status, body) = try await Self.send(client, .put, "/scores/s2.json?ns=\(Self.ns)",
                #"{"uid": "\#(bobID)", "score": 20}"#, headers: [.authorization: "Bearer \(bob)"])
            #expect(status == .ok, "\(body)")
            // .validate: the score must be a number, and the entry the writer's own.
            (status, _) = try await Self.send(client, .put, "/scores/s3.json?ns=\(Self.ns)&auth=\(bob)",
                #"{"uid": "\#(bobID)", "score": "many"}"#)
            #expect(status == .unauthorized)
            (status, _) = try await Self.send(client, .patch, "/scores.json?ns=\(Self.ns)&auth=\(bob)",
                #"{"s4": {"uid": "\#(bobID)", "score": 1}, "s1/score": 0}"#)
            #expect(status == .unauthorized, "every location of an update must be allowed")
            // Ordering by a child needs its .indexOn (scores has one for score, none for uid).
            (status, body) = try await Self.send(client, .get,
                "/scores.json?ns=\(Self.ns)&auth=\(ada)&orderBy=%22uid%22&limitToFirst=1")
            #expect(status == .badRequest)
            #expect(body["error"]?.stringValue?.hasPrefix("Index not defined, add \".indexOn\": \"uid\"") == true, "\(body)")
            // A token that does not parse is refused as the Realtime Database does.
            (status, body) = try await Self.send(client, .get, "/scores.json?ns=\(Self.ns)&auth=garbage")
            #expect(status == .unauthorized)
            #expect(body == ["error": "Could not parse auth token."])
        }
        let scores = try server.emulator.database.get(namespace: Self.ns, path: "scores")
        #expect(scores.objectValue?.keys.sorted() == ["s1", "s2"])
        #expect(scores["s1"]?["score"] == 10)
    }

    @Test("Bearer owner is admin; auth_variable_override runs an admin request under the given auth")
    func adminAndOverride() async throws {
        let (server, _, _) = try await Self.server()
        let owner: HTTPFields = [.authorization: "Bearer owner"]
        try await Application(router: server.router()).test(.router) { client in
            var (status, _) = try await Self.send(client, .put, "/anything.json?ns=\(Self.ns)", "1", headers: owner)
            #expect(status == .ok)
            let asBob = "auth_variable_override=" + #"{"uid":"bob"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            (status, _) = try await Self.send(client, .put, "/scores/s5.json?ns=\(Self.ns)&\(asBob)",
                #"{"uid": "bob", "score": 5}"#, headers: owner)
            #expect(status == .ok)
            (status, _) = try await Self.send(client, .put, "/scores/s1.json?ns=\(Self.ns)&\(asBob)",
                #"{"uid": "bob", "score": 5}"#, headers: owner)
            #expect(status == .unauthorized, "bob may not take ada's entry")
            (status, _) = try await Self.send(client, .get, "/scores.json?ns=\(Self.ns)&auth_variable_override=null",
                headers: owner)
            #expect(status == .unauthorized, "null is signed out")
            (status, _) = try await Self.send(client, .get, "/scores.json?ns=\(Self.ns)&auth_variable_override=%5B",
                headers: owner)
            #expect(status == .badRequest)
        }
    }

    @Test("rules are read and replaced through /.settings/rules.json; broken rules are refused and the old ones kept")
    func settingsRoute() async throws {
        let (server, _, _) = try await Self.server()
        let owner: HTTPFields = [.authorization: "Bearer owner"]
        try await Application(router: server.router()).test(.router) { client in
            let text = try await client.execute(uri: "/.settings/rules.json", method: .get, headers: owner) {
                String(buffer: $0.body)
            }
            #expect(text == Self.rules)
            var (status, body) = try await Self.send(client, .put, "/.settings/rules.json",
                "{\"rules\": {\".read\": \"nope\"}}", headers: owner)
            #expect(status == .badRequest)
            #expect(body["error"]?.stringValue?.hasPrefix("1:22: Unknown variable 'nope'.") == true, "\(body)")
            (status, _) = try await Self.send(client, .put, "/.settings/rules.json",
                #"{"rules": {".read": true}}"#)
            #expect(status == .unauthorized, "only the owner changes rules")
            (status, _) = try await Self.send(client, .get, "/scores.json?ns=\(Self.ns)")
            #expect(status == .unauthorized, "the old rules are still in force")
            (status, body) = try await Self.send(client, .put, "/.settings/rules.json",
                #"{"rules": {".read": true}}"#, headers: owner)
            #expect(body == ["status": "ok"])
            (status, _) = try await Self.send(client, .get, "/scores.json?ns=\(Self.ns)")
            #expect(status == .ok)
        }
    }
}
