import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOHTTP1
import Testing

/// SSE streaming over a real socket, and HTTP writes firing deployed functions.
@Suite("Database routes: streaming and triggers", .timeLimit(.minutes(5)))
struct DatabaseRoutesStreamTests {
    static let ns = DatabaseRoutesTests.ns

    @Test("a stream sends the initial put at /, then put and patch frames for writes, and keep-alives")
    func stream() async throws {
        var configuration = EmulatorServer.Configuration()
        configuration.databaseKeepAliveInterval = .milliseconds(100)
        let server = EmulatorServer(
            emulator: try Emulator(project: "demo-project", directory: nil), configuration: configuration)
        let db = server.emulator.database
        try await db.set(namespace: Self.ns, path: "live", value: ["a": 1])
        try await Application(router: server.router()).test(.live) { client in
            let port = try #require(client.port)
            try await SSETestClient.withStream(port: port, uri: "/live.json?ns=\(Self.ns)", headers: [
                ("Accept", "text/event-stream"), ("Cache-Control", "no-cache"), ("Authorization", "Bearer owner"),
            ]) { reader in
                let head = try #require(try await reader.head())
                #expect(head.status == .ok)
                #expect(head.headers["Content-Type"] == ["text/event-stream"])
                #expect(try await reader.nextChange() == SSEFrame(event: "put", data: #"{"path":"/","data":{"a":1}}"#))
                #expect(db.listenerCount == 1)

                try await db.set(namespace: Self.ns, path: "live/b", value: 2)
                #expect(try await reader.nextChange() == SSEFrame(event: "put", data: #"{"path":"/b","data":2}"#))

                try await db.update(namespace: Self.ns, path: "live", values: ["c/d": 3, "a": nil])
                let patch = try #require(try await reader.nextChange())
                #expect(patch.event == "patch")
                #expect(try JSONValue(parsing: Data(patch.data.utf8)) == ["path": "/", "data": ["c/d": 3, "a": nil]])

                try await db.set(namespace: Self.ns, path: "elsewhere", value: 1)
                try await db.delete(namespace: Self.ns, path: "live")
                #expect(try await reader.nextChange() == SSEFrame(event: "put", data: #"{"path":"/","data":null}"#))

                let keepAlive = try await reader.next()
                #expect(keepAlive == SSEFrame(event: "keep-alive", data: "null"))
            }
            // The client is gone: the server notices at its next frame (a keep-alive within 100 ms)
            // and closes the change feed.
            await db.waitUntilNoListeners()
            #expect(db.listenerCount == 0)
        }
    }

    @Test("a client's stream is cancelled once the security rules no longer allow its read")
    func streamCancelledByRules() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo-project", directory: nil))
        let db = server.emulator.database
        db.rules = try DatabaseRules(text: #"{"rules": {"live": {".read": "root.child('open').val() == true"}}}"#)
        try await db.set(namespace: Self.ns, path: "open", value: true)
        try await db.set(namespace: Self.ns, path: "live", value: ["a": 1])
        try await Application(router: server.router()).test(.live) { client in
            let port = try #require(client.port)
            try await SSETestClient.withStream(port: port, uri: "/live.json?ns=\(Self.ns)", headers: [
                ("Accept", "text/event-stream"),
            ]) { reader in
                #expect(try #require(try await reader.head()).status == .ok)
                #expect(try await reader.nextChange() == SSEFrame(event: "put", data: #"{"path":"/","data":{"a":1}}"#))
                try await db.set(namespace: Self.ns, path: "live/b", value: 2)
                #expect(try await reader.nextChange() == SSEFrame(event: "put", data: #"{"path":"/b","data":2}"#))
                try await db.set(namespace: Self.ns, path: "open", value: false)
                try await db.set(namespace: Self.ns, path: "live/c", value: 3)
                #expect(try await reader.next() == SSEFrame(event: "cancel", data: #""Permission denied""#))
            }
        }
    }

    @Test("a query's stream sends the query's result, again whenever a write changes it, and nothing outside it")
    func queryStream() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo-project", directory: nil))
        let db = server.emulator.database
        // Each user may read only the items they own, and only by asking for them.
        db.rules = try DatabaseRules(text: """
            {"rules": {"items": {".read": "query.orderByChild == 'owner' && query.equalTo == auth.uid", ".indexOn": ["owner"]}}}
            """)
        try await db.set(namespace: Self.ns, path: "items", value: ["i1": ["owner": "ada", "n": 1], "i2": ["owner": "bob", "n": 2]])
        let token = Self.idToken(uid: "ada", project: "demo-project")
        try await Application(router: server.router()).test(.live) { client in
            let port = try #require(client.port)
            let uri = "/items.json?ns=\(Self.ns)&orderBy=%22owner%22&equalTo=%22ada%22&auth=\(token)"
            try await SSETestClient.withStream(port: port, uri: uri, headers: [("Accept", "text/event-stream")]) { reader in
                #expect(try #require(try await reader.head()).status == .ok)
                #expect(try await reader.nextChange()
                    == SSEFrame(event: "put", data: #"{"path":"/","data":{"i1":{"n":1,"owner":"ada"}}}"#))
                // Bob's writes change nothing the query returns: no frame for them.
                try await db.set(namespace: Self.ns, path: "items/i2/n", value: 3)
                try await db.set(namespace: Self.ns, path: "items/i3", value: ["owner": "bob", "n": 4])
                try await db.set(namespace: Self.ns, path: "items/i4", value: ["owner": "ada", "n": 5])
                #expect(try await reader.nextChange() == SSEFrame(event: "put",
                    data: #"{"path":"/","data":{"i1":{"n":1,"owner":"ada"},"i4":{"n":5,"owner":"ada"}}}"#))
            }
        }
    }

    @Test("a stream of a bad path answers 400 with {\"error\": ...} before streaming")
    func badStream() async throws {
        let server = try DatabaseRoutesTests.server()
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/a%5B.json", method: .get, headers: [.accept: "text/event-stream"]) {
                response in
                #expect(response.status == .badRequest)
                #expect(DatabaseRoutesTests.parsed(response)?["error"]?.stringValue != nil)
            }
        }
        #expect(server.emulator.database.listenerCount == 0)
    }

    @Test("writes through HTTP fire deployed functions with the writer's auth; disableTriggers=true does not")
    func triggers() async throws {
        let server = try DatabaseRoutesTests.server()
        try await server.emulator.withRunning {
            var functions = FunctionRegistry()
            functions["audit"] = Database.ref("/scores/{id}").onWrite { change, context in
                try await context.database.ref("audit").set([
                    "type": .string(context.authType ?? ""), "uid": context.authId.map(JSONValue.string) ?? .null,
                    "after": change.after.val(),
                ])
            }
            try await server.emulator.deploy(functions)
            let db = server.emulator.database
            let token = Self.idToken(uid: "alice", project: "demo-project")
            try await Application(router: server.router()).test(.router) { client in
                try await client.execute(uri: "/scores/s1.json?print=silent&ns=\(Self.ns)", method: .put,
                    headers: DatabaseRoutesTests.owner, body: ByteBuffer(string: "10")) { _ in }
                await server.emulator.waitUntilIdle()
                #expect(try db.get(namespace: Self.ns, path: "audit") == ["type": "admin", "after": 10])

                try await client.execute(uri: "/scores/s2.json?auth=\(token)&ns=\(Self.ns)", method: .put,
                    body: ByteBuffer(string: "20")) { response in #expect(response.status == .ok) }
                await server.emulator.waitUntilIdle()
                #expect(try db.get(namespace: Self.ns, path: "audit") == ["type": "app_user", "uid": "alice", "after": 20])

                try await client.execute(uri: "/scores.json?ns=\(Self.ns)", method: .patch,
                    body: ByteBuffer(string: #"{"s3": 30}"#)) { _ in }
                await server.emulator.waitUntilIdle()
                #expect(try db.get(namespace: Self.ns, path: "audit") == ["type": "unauthenticated", "after": 30])

                try await client.execute(uri: "/scores/s4.json?disableTriggers=true&ns=\(Self.ns)", method: .put,
                    headers: DatabaseRoutesTests.owner, body: ByteBuffer(string: "40")) { _ in }
                await server.emulator.waitUntilIdle()
                #expect(try db.get(namespace: Self.ns, path: "audit/after") == 30)
                #expect(try db.get(namespace: Self.ns, path: "scores/s4") == 40)
            }
        }
    }

    /// An unsigned emulator ID token (`alg: none`), as the Auth emulator issues.
    static func idToken(uid: String, project: String) -> String {
        let encode = { (json: String) in
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let now = Int(Date().timeIntervalSince1970)
        let claims = #"{"sub":"\#(uid)","aud":"\#(project)","iss":"https://securetoken.google.com/\#(project)","#
            + #""iat":\#(now),"exp":\#(now + 3600)}"#
        return encode(#"{"alg":"none","typ":"JWT"}"#) + "." + encode(claims) + "."
    }
}
