import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The Node SDK's camelCase sends and the error shapes of each messaging route.
@Suite("Messaging routes: camelCase and errors")
struct MessagingRoutesErrorTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    /// A well-formed token no device of the emulator holds.
    static let stranger = "cStrangerInstance00000:APA91b" + String(repeating: "z", count: 134)

    static func json(_ response: TestResponse) -> JSONValue? {
        try? JSONValue(parsing: Data(response.body.readableBytesView))
    }

    @Test("sends the Node SDK's camelCase body to a token; validateOnly names a message and delivers nothing")
    func camelCase() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let token = try await server.emulator.messaging.registerDevice(platform: "android")
        let message = #"{"token": "\#(token)", "data": {"k": "v"}, "fcmOptions": {"analyticsLabel": "l1"}, "#
            + #""android": {"collapseKey": "c", "restrictedPackageName": "com.example"}}"#
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/v1/projects/demo/messages:send", method: .post, headers: Self.owner,
                body: ByteBuffer(string: #"{"validateOnly": true, "message": \#(message)}"#)) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response)?["name"]?.stringValue?.hasPrefix("projects/demo/messages/") == true)
            }
            #expect(try server.emulator.messaging.inbox(token: token).isEmpty)
            try await client.execute(uri: "/v1/projects/demo/messages:send", method: .post, headers: Self.owner,
                body: ByteBuffer(string: #"{"message": \#(message)}"#)) { #expect($0.status == .ok) }
            #expect(try server.emulator.messaging.inbox(token: token).count == 1)
        }
    }

    @Test("an unknown token is 404 UNREGISTERED with FcmError details; bad JSON is 400")
    func sendErrors() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let stranger = Self.stranger
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/v1/projects/demo/messages:send", method: .post, headers: Self.owner,
                body: ByteBuffer(string: #"{"message": {"token": "\#(stranger)", "data": {"k": "v"}}}"#)) { response in
                #expect(response.status == .notFound)
                let error = Self.json(response)?["error"]
                #expect(error?["status"] == "NOT_FOUND")
                #expect(error?["details"]?.arrayValue?.first?["errorCode"] == "UNREGISTERED")
            }
            try await client.execute(uri: "/v1/projects/demo/messages:send", method: .post, headers: Self.owner,
                body: ByteBuffer(string: "{nope")) { response in
                #expect(response.status == .badRequest)
                #expect(Self.json(response)?["error"]?["status"] == "INVALID_ARGUMENT")
            }
        }
    }

    @Test("IID batchRemove answers index-aligned results; whole-request errors are {\"error\": CODE}")
    func batchRemove() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let tokens = try await server.emulator.messaging.registerDevices(count: 2)
        _ = try await server.emulator.messaging.subscribe(tokens: tokens, to: "news")
        try await Application(router: server.router()).test(.router) { client in
            let body = #"{"to": "/topics/news", "registration_tokens": ["\#(tokens[0])", "\#(Self.stranger)"]}"#
            try await client.execute(uri: "/iid/v1:batchRemove", method: .post, headers: Self.owner,
                body: ByteBuffer(string: body)) { response in
                #expect(response.status == .ok)
                let results = Self.json(response)?["results"]?.arrayValue
                #expect(results?.count == 2)
                #expect(results?.first == [:])
                #expect(results?.last == ["error": "NOT_FOUND"])
            }
            #expect(server.emulator.messaging.topics(forToken: tokens[0]).isEmpty)
            #expect(server.emulator.messaging.topics(forToken: tokens[1]) == ["news"])
            try await client.execute(uri: "/iid/v1:batchAdd", method: .post, body: ByteBuffer(string: body)) {
                response in
                #expect(response.status == .unauthorized)
                #expect(Self.json(response) == ["error": "UNAUTHENTICATED"])
            }
            try await client.execute(uri: "/iid/v1:batchAdd", method: .post, headers: Self.owner,
                body: ByteBuffer(string: #"{"to": "/topics/bad topic!", "registration_tokens": ["a"]}"#)) { response in
                #expect(response.status == .badRequest)
                #expect(Self.json(response) == ["error": "INVALID_ARGUMENT"])
            }
        }
    }

    @Test("per-token errors: no credential 401, no topic 400, unknown token 404, missing subscription 404")
    func perTokenErrors() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let token = try await server.emulator.messaging.registerDevice()
        let stranger = Self.stranger
        let base = "/v1/projects/demo/registrations"
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "\(base)/\(token)/topicSubscriptions?topic_name=news", method: .post,
                body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .unauthorized)
                #expect(Self.json(response)?["error"]?["status"] == "UNAUTHENTICATED")
            }
            try await client.execute(uri: "\(base)/\(token)/topicSubscriptions", method: .post, headers: Self.owner,
                body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .badRequest)
                #expect(Self.json(response)?["error"]?["status"] == "INVALID_ARGUMENT")
            }
            try await client.execute(uri: "\(base)/\(stranger)/topicSubscriptions?topic_name=news", method: .post,
                headers: Self.owner, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .notFound)
                #expect(Self.json(response)?["error"]?["details"]?.arrayValue?.first?["errorCode"] == "UNREGISTERED")
            }
            try await client.execute(uri: "\(base)/\(token)/topicSubscriptions/news", method: .delete,
                headers: Self.owner) { response in
                #expect(response.status == .notFound)
                #expect(Self.json(response)?["error"]?["status"] == "NOT_FOUND")
            }
            try await client.execute(uri: "\(base)/\(token)/topicSubscriptions/news?allow_missing=true",
                method: .delete, headers: Self.owner) { #expect($0.status == .ok) }
        }
    }
}
