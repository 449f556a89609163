import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Writes, ETags and method overrides of the Realtime Database REST routes.
@Suite("Database routes: writes and ETags")
struct DatabaseRoutesWriteTests {
    static let ns = DatabaseRoutesTests.ns
    static let owner = DatabaseRoutesTests.owner
    static let etagRequested: HTTPFields = [.authorization: "Bearer owner", HTTPField.Name("X-Firebase-ETag")!: "true"]

    static func parsed(_ response: TestResponse) -> JSONValue? { DatabaseRoutesTests.parsed(response) }

    @Test("get(etag=True), get_if_changed (304 / 200), set_if_unchanged (200 + ETag / 412 + value + ETag)")
    func etags() async throws {
        let server = try DatabaseRoutesTests.server()
        let db = server.emulator.database
        try await db.set(namespace: Self.ns, path: "doc", value: ["v": 1])
        let first = try db.etag(namespace: Self.ns, path: "doc")
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/doc.json?ns=\(Self.ns)", method: .get, headers: Self.etagRequested) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == first)
                #expect(Self.parsed(response) == ["v": 1])
            }
            var ifNoneMatch = Self.owner
            ifNoneMatch[.ifNoneMatch] = first
            try await client.execute(uri: "/doc.json?ns=\(Self.ns)", method: .get, headers: ifNoneMatch) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            ifNoneMatch[.ifNoneMatch] = "stale"
            try await client.execute(uri: "/doc.json?ns=\(Self.ns)", method: .get, headers: ifNoneMatch) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == first)
                #expect(Self.parsed(response) == ["v": 1])
            }
            var ifMatch = Self.owner
            ifMatch[.ifMatch] = first
            let second = try await client.execute(uri: "/doc.json?ns=\(Self.ns)", method: .put, headers: ifMatch,
                body: ByteBuffer(string: #"{"v": 2}"#)) { response in
                #expect(response.status == .ok)
                #expect(Self.parsed(response) == ["v": 2])
                return try #require(response.headers[.eTag])
            }
            #expect(second == (try db.etag(namespace: Self.ns, path: "doc")))
            #expect(second != first)
            try await client.execute(uri: "/doc.json?ns=\(Self.ns)", method: .put, headers: ifMatch,
                body: ByteBuffer(string: #"{"v": 3}"#)) { response in
                #expect(response.status == .preconditionFailed)
                #expect(Self.parsed(response) == ["v": 2])
                #expect(response.headers[.eTag] == second)
            }
            try await client.execute(uri: "/doc.json?ns=\(Self.ns)", method: .delete, headers: ifMatch) { response in
                #expect(response.status == .preconditionFailed)
                #expect(response.headers[.eTag] == second)
            }
            ifMatch[.ifMatch] = "null_etag"
            try await client.execute(uri: "/fresh.json?ns=\(Self.ns)", method: .put, headers: ifMatch,
                body: ByteBuffer(string: "true")) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == (try? db.etag(namespace: Self.ns, path: "fresh")))
            }
        }
        #expect(try db.get(namespace: Self.ns, path: "doc") == ["v": 2])
    }

    @Test("update (multi-path, silent), push (name, empty string), delete (null), print=pretty")
    func writes() async throws {
        let server = try DatabaseRoutesTests.server()
        let db = server.emulator.database
        try await db.set(namespace: Self.ns, path: "users/u1", value: ["name": "x", "a": ["b": 1, "c": 2], "keep": true])
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/users/u1.json?print=silent&ns=\(Self.ns)", method: .patch,
                headers: Self.owner, body: ByteBuffer(string: #"{"name": "y", "a/b": 3}"#)) { response in
                #expect(response.status == .noContent)
            }
            #expect(try db.get(namespace: Self.ns, path: "users/u1")
                == ["name": "y", "a": ["b": 3, "c": 2], "keep": true])
            try await client.execute(uri: "/users/u1.json?ns=\(Self.ns)", method: .patch, headers: Self.owner,
                body: ByteBuffer(string: #"{"keep": null}"#)) { response in
                #expect(response.status == .ok)
                #expect(Self.parsed(response) == ["keep": nil])
            }
            let name = try await client.execute(uri: "/msgs.json?ns=\(Self.ns)", method: .post, headers: Self.owner,
                body: ByteBuffer(string: #"{"text": "hi"}"#)) { response in
                #expect(response.status == .ok)
                let name = try #require(Self.parsed(response)?["name"]?.stringValue)
                #expect(name.count == 20)
                return name
            }
            #expect(try db.get(namespace: Self.ns, path: "msgs/\(name)") == ["text": "hi"])
            let empty = try await client.execute(uri: "/msgs.json?ns=\(Self.ns)", method: .post, headers: Self.owner,
                body: ByteBuffer(string: #""""#)) { response in
                try #require(Self.parsed(response)?["name"]?.stringValue)
            }
            #expect(try db.get(namespace: Self.ns, path: "msgs/\(empty)") == "")
            try await client.execute(uri: "/users/u1.json?ns=\(Self.ns)", method: .delete, headers: Self.owner) {
                response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "null")
            }
            #expect(try db.get(namespace: Self.ns, path: "users/u1") == .null)
            try await client.execute(uri: "/msgs.json?print=silent&ns=\(Self.ns)", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await db.set(namespace: Self.ns, path: "p", value: ["a": 1, "b": ["c": [1, 2]]])
            try await client.execute(uri: "/p.json?print=pretty&ns=\(Self.ns)", method: .get) { response in
                #expect(String(buffer: response.body) == """
                    {
                      "a": 1,
                      "b": {
                        "c": [
                          1,
                          2
                        ]
                      }
                    }
                    """)
            }
        }
    }

    @Test("X-HTTP-Method-Override on POST, as a header or a query parameter")
    func methodOverride() async throws {
        let server = try DatabaseRoutesTests.server()
        let db = server.emulator.database
        try await Application(router: server.router()).test(.router) { client in
            var headers = Self.owner
            headers[HTTPField.Name("X-HTTP-Method-Override")!] = "PUT"
            try await client.execute(uri: "/o.json?ns=\(Self.ns)", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"a": 1, "b": 2}"#)) { response in
                #expect(response.status == .ok)
                #expect(Self.parsed(response) == ["a": 1, "b": 2])
            }
            headers[HTTPField.Name("X-HTTP-Method-Override")!] = "patch"
            try await client.execute(uri: "/o.json?ns=\(Self.ns)", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"b": 3}"#)) { _ in }
            #expect(try db.get(namespace: Self.ns, path: "o") == ["a": 1, "b": 3])
            try await client.execute(uri: "/o/a.json?x-http-method-override=DELETE&ns=\(Self.ns)", method: .post,
                headers: Self.owner) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "null")
            }
            #expect(try db.get(namespace: Self.ns, path: "o") == ["b": 3])
            headers[HTTPField.Name("X-HTTP-Method-Override")!] = "TRACE"
            try await client.execute(uri: "/o.json?ns=\(Self.ns)", method: .post, headers: headers,
                body: ByteBuffer(string: "1")) { response in
                #expect(response.status == .badRequest)
                #expect(Self.parsed(response)?["error"]?.stringValue != nil)
            }
        }
        #expect(try db.get(namespace: Self.ns, path: "o") == ["b": 3])
    }
}
