import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The Realtime Database REST routes, driven with the requests firebase-admin (Python) sends
/// (as the Admin SDKs send them: `ns` last, `print=silent` on set/update, `%22`-quoted query values).
@Suite("Database routes")
struct DatabaseRoutesTests {
    static let ns = "demo-project-default-rtdb"
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    static func server(maxBodySize: Int = 32 * 1024 * 1024) throws -> EmulatorServer {
        EmulatorServer(
            emulator: try Emulator(project: "demo-project", directory: nil),
            configuration: .init(maxBodySize: maxBodySize))
    }

    static func json(_ response: TestResponse) throws -> JSONValue {
        try JSONValue(parsing: Data(response.body.readableBytesView))
    }

    /// The body as JSON; `nil` when it is not JSON.
    static func parsed(_ response: TestResponse) -> JSONValue? {
        try? json(response)
    }

    static func text(_ response: TestResponse) -> String {
        String(buffer: response.body)
    }

    @Test("set (silent), get, get of a missing location, shallow get, as firebase-admin sends them")
    func setAndGet() async throws {
        let server = try Self.server()
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/users/u1.json?print=silent&ns=\(Self.ns)", method: .put,
                headers: Self.owner, body: ByteBuffer(string: #"{"name": "Ada", "age": 36, "tags": {"x": true}}"#)
            ) { response in
                #expect(response.status == .noContent)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/users/u1.json?ns=\(Self.ns)", method: .get, headers: Self.owner) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                #expect(Self.parsed(response) == ["name": "Ada", "age": 36, "tags": ["x": true]])
                #expect(response.headers[.eTag] == nil)
            }
            try await client.execute(uri: "/users/nobody.json?ns=\(Self.ns)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Self.text(response) == "null")
            }
            try await client.execute(uri: "/users/u1.json?shallow=true&ns=\(Self.ns)", method: .get) { response in
                #expect(Self.parsed(response) == ["name": true, "age": true, "tags": true])
            }
            try await client.execute(uri: "/.json?ns=\(Self.ns)", method: .get) { response in
                #expect(Self.parsed(response)?["users"]?["u1"]?["name"] == "Ada")
            }
        }
    }

    @Test("without ns the default instance is used; ns selects another; percent-encoded segments are decoded")
    func namespacesAndPaths() async throws {
        let server = try Self.server()
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/a/b%20c.json", method: .put, body: ByteBuffer(string: "1")) { response in
                #expect(response.status == .ok)
                #expect(Self.text(response) == "1")
            }
            #expect(try server.emulator.database.get(namespace: Self.ns, path: "/a/b c") == 1)
            try await client.execute(uri: "/a.json?ns=other-db", method: .put, body: ByteBuffer(string: "2")) { _ in }
            #expect(try server.emulator.database.get(namespace: "other-db", path: "/a") == 2)
            #expect(try server.emulator.database.get(namespace: Self.ns, path: "/a") == ["b c": 1])
        }
    }

    @Test("queries: orderBy child with range and limit, $key with equalTo, $value with limitToLast")
    func queries() async throws {
        let server = try Self.server()
        try await server.emulator.database.set(namespace: Self.ns, path: "users", value: [
            "u1": ["age": 17], "u2": ["age": 18], "u3": ["age": 25], "u4": ["age": 30], "u5": ["age": 31],
        ])
        try await server.emulator.database.set(namespace: Self.ns, path: "scores", value: ["a": 5, "b": 1, "c": 9, "d": 7])
        try await server.emulator.database.set(namespace: Self.ns, path: "people", value: [
            "p1": ["name": "Ada Lovelace"], "p2": ["name": "Ada+Lovelace"], "p3": ["name": "Grace Hopper"],
        ])
        try await Application(router: server.router()).test(.router) { client in
            // Form encoding, as Python's firebase-admin (through requests) sends it: + is a space, %2B a +.
            let byName = "/people.json?orderBy=%22name%22&equalTo=%22Ada+Lovelace%22&ns=\(Self.ns)"
            try await client.execute(uri: byName, method: .get, headers: Self.owner) { response in
                #expect(Self.parsed(response) == ["p1": ["name": "Ada Lovelace"]])
            }
            let byPlus = "/people.json?orderBy=%22name%22&equalTo=%22Ada%2BLovelace%22&ns=\(Self.ns)"
            try await client.execute(uri: byPlus, method: .get, headers: Self.owner) { response in
                #expect(Self.parsed(response) == ["p2": ["name": "Ada+Lovelace"]])
            }
            let byAge = "/users.json?endAt=30&limitToFirst=2&orderBy=%22age%22&startAt=18&ns=\(Self.ns)"
            try await client.execute(uri: byAge, method: .get, headers: Self.owner) { response in
                #expect(response.status == .ok)
                #expect(Self.parsed(response) == ["u2": ["age": 18], "u3": ["age": 25]])
            }
            let byKey = "/users.json?equalTo=%22u1%22&orderBy=%22$key%22&ns=\(Self.ns)"
            try await client.execute(uri: byKey, method: .get, headers: Self.owner) { response in
                #expect(Self.parsed(response) == ["u1": ["age": 17]])
            }
            let byValue = "/scores.json?limitToLast=3&orderBy=%22$value%22&ns=\(Self.ns)"
            try await client.execute(uri: byValue, method: .get, headers: Self.owner) { response in
                #expect(Self.parsed(response) == ["a": 5, "c": 9, "d": 7])
            }
        }
    }

    @Test("bad queries, paths, bodies, namespaces and tokens get 4xx with {\"error\": ...}")
    func errors() async throws {
        let server = try Self.server(maxBodySize: 64)
        let cases: [(String, HTTPRequest.Method, String?, HTTPResponse.Status, String?)] = [
            ("/users.json?limitToFirst=1", .get, nil, .badRequest,
             "orderBy must be defined when other query parameters are defined"),
            ("/users.json?orderBy=age", .get, nil, .badRequest, "orderBy must be a valid JSON encoded path"),
            ("/users.json?orderBy=%22$key%22&startAt=1", .get, nil, .badRequest,
             "Provided key index type is invalid, must be string"),
            ("/a.json", .put, "{nope", .badRequest, "Invalid data; couldn't parse JSON object, array, or value."),
            ("/a.json", .put, "", .badRequest, "Invalid data; couldn't parse JSON object, array, or value."),
            ("/a.json", .patch, "[1]", .badRequest, nil),
            ("/a.json", .put, #"{".bad": 1}"#, .badRequest, nil),
            ("/a%5Bb.json", .get, nil, .badRequest, nil),
            ("/a.json?ns=bad.name", .get, nil, .badRequest, nil),
            ("/a.json?auth=not-a-token", .put, "1", .unauthorized, "Could not parse auth token."),
            ("/a.json", .post, String(repeating: "1", count: 100), .contentTooLarge, nil),
        ]
        try await Application(router: server.router()).test(.router) { client in
            for (uri, method, body, status, message) in cases {
                try await client.execute(uri: uri, method: method, body: body.map { ByteBuffer(string: $0) }) {
                    response in
                    #expect(response.status == status, "\(method) \(uri)")
                    let error = try? Self.json(response)["error"]?.stringValue
                    #expect(error != nil, "\(method) \(uri)")
                    if let message { #expect(error == message) }
                }
            }
        }
        #expect(try server.emulator.database.get(namespace: Self.ns, path: "/") == .null)
    }

    @Test("other routes are not swallowed: paths not ending in .json reach the router")
    func otherRoutes() async throws {
        let server = try Self.server()
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/emulator/v1/projects/demo-project/events", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Self.parsed(response)?["events"] == [])
            }
            try await client.execute(uri: "/nowhere", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
