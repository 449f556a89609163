import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Messaging routes")
struct MessagingRoutesTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    static func json(_ response: TestResponse) -> JSONValue? {
        try? JSONValue(parsing: Data(response.body.readableBytesView))
    }

    @Test("subscribes with the IID batch form and sends the Python SDK's snake_case body to the topic")
    func batchAndSend() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let tokens = try await server.emulator.messaging.registerDevices(count: 2)
        try await Application(router: server.router()).test(.router) { client in
            let batch = #"{"to": "/topics/news", "registration_tokens": ["\#(tokens[0])", "not a token"]}"#
            try await client.execute(uri: "/iid/v1:batchAdd", method: .post, headers: Self.owner,
                body: ByteBuffer(string: batch)) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response) == ["results": [[:], ["error": "INVALID_ARGUMENT"]]])
            }
            let send = #"""
                {"message":{"android":{"priority":"high","ttl":"3600s"},
                 "apns":{"headers":{"apns-priority":"5","apns-push-type":"background"},
                         "payload":{"aps":{"content-available":1}}},
                 "data":{"k":"v"},"topic":"news"}}
                """#
            try await client.execute(uri: "/v1/projects/demo/messages:send", method: .post, headers: Self.owner,
                body: ByteBuffer(string: send)) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response)?["name"]?.stringValue?.hasPrefix("projects/demo/messages/") == true)
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/devices/\(tokens[0])/messages", method: .get) {
                response in
                let messages = Self.json(response)?["messages"]?.arrayValue
                #expect(messages?.map { $0["data"] } == [["k": "v"]])
                #expect(messages?.first?["android"]?["priority"] == "high")
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/devices/\(tokens[1])/messages", method: .get) {
                #expect(Self.json($0)?["messages"] == [])
            }
        }
    }

    @Test("answers FCM errors with details, and refuses unauthenticated calls")
    func errors() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/v1/projects/demo/messages:send", method: .post, headers: Self.owner,
                body: ByteBuffer(string: #"{"message": {"topic": "t", "data": {"from": "x"}}}"#)) { response in
                #expect(response.status == .badRequest)
                let error = Self.json(response)?["error"]
                #expect(error?["status"] == "INVALID_ARGUMENT")
                #expect(error?["details"]?.arrayValue?.contains {
                    $0["@type"] == "type.googleapis.com/google.firebase.fcm.v1.FcmError"
                } == true)
            }
            try await client.execute(uri: "/v1/projects/demo/messages:send", method: .post,
                body: ByteBuffer(string: #"{"message": {"topic": "t"}}"#)) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/iid/v1:batchAdd", method: .post, headers: Self.owner,
                body: ByteBuffer(string: #"{"to": "/topics/news"}"#)) { response in
                #expect(response.status == .badRequest)
                #expect(Self.json(response)?["error"]?.stringValue != nil)
            }
        }
    }

    @Test("subscribes and unsubscribes one token with the v1 per-token form")
    func perToken() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let token = try await server.emulator.messaging.registerDevice()
        let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/v1/projects/demo/registrations/\(encoded)/topicSubscriptions?topic_name=news",
                method: .post, headers: Self.owner, body: ByteBuffer(string: "{}")) { #expect($0.status == .ok) }
            #expect(server.emulator.messaging.topics(forToken: token) == ["news"])
            try await client.execute(
                uri: "/v1/projects/demo/registrations/\(encoded)/topicSubscriptions/news?allow_missing=true",
                method: .delete, headers: Self.owner) { #expect($0.status == .ok) }
            #expect(server.emulator.messaging.topics(forToken: token).isEmpty)
        }
    }
}
