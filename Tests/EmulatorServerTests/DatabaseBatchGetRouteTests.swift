import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /emulator/v1/databases/{namespace}:batchGet`: the reads functions workers send together.
@Suite("Database batch read route")
struct DatabaseBatchGetRouteTests {
    static let ns = DatabaseRoutesTests.ns
    static let uri = "/emulator/v1/databases/\(ns):batchGet"
    static let json: HTTPFields = [.authorization: "Bearer owner", .contentType: "application/json"]

    @Test("answers each read in order, with the ETag a REST GET gives; a bad path fails alone")
    func readsInOrder() async throws {
        let server = try DatabaseRoutesTests.server()
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/leaderboard.json?ns=\(Self.ns)", method: .put, headers: Self.json,
                body: ByteBuffer(string: #"{"p1": 500, "p2": {"best": 7}}"#)) { #expect($0.status == .ok) }
            var etag = ""
            try await client.execute(uri: "/leaderboard/p2.json?ns=\(Self.ns)", method: .get,
                headers: [.authorization: "Bearer owner", HTTPField.Name("X-Firebase-ETag")!: "true"]) { response in
                etag = response.headers[.eTag] ?? ""
            }
            #expect(!etag.isEmpty)
            let body = #"{"reads": [{"path": "leaderboard/p2", "etag": true}, {"path": "leaderboard/p1"}, "#
                + #"{"path": "leaderboard/bad.key", "etag": true}, {"path": "nothing/here", "etag": true}, {"etag": true}]}"#
            try await client.execute(uri: Self.uri, method: .post, headers: Self.json, body: ByteBuffer(string: body)) {
                response in
                #expect(response.status == .ok)
                let reads = try DatabaseRoutesTests.json(response)["reads"]?.arrayValue ?? []
                #expect(reads.count == 5)
                guard reads.count == 5 else { return }
                #expect(reads[0] == ["value": ["best": 7], "etag": .string(etag)])
                #expect(reads[1] == ["value": 500])
                #expect(reads[2]["error"]?["code"] == 400)
                #expect(reads[2]["error"]?["status"] == "INVALID_ARGUMENT")
                #expect(reads[3]["value"] == .null)
                #expect(reads[3]["etag"]?.stringValue?.isEmpty == false)
                #expect(reads[4]["error"]?["code"] == 400)
            }
        }
    }

    @Test("needs the owner credential; a body without reads, too many reads or a bad namespace is a 400")
    func refusals() async throws {
        let server = try DatabaseRoutesTests.server()
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: Self.uri, method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"reads": []}"#)) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: Self.uri, method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"paths": ["a"]}"#)) { response in
                #expect(response.status == .badRequest)
                #expect(DatabaseRoutesTests.parsed(response)?["error"]?["status"] == "INVALID_ARGUMENT")
            }
            let many = JSONValue.object(["reads": .array(Array(repeating: ["path": "a"], count: 1001))])
            try await client.execute(uri: Self.uri, method: .post, headers: Self.json,
                body: ByteBuffer(bytes: many.serializedBytes())) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/emulator/v1/databases/bad%20ns:batchGet", method: .post,
                headers: Self.json, body: ByteBuffer(string: #"{"reads": [{"path": "a"}]}"#)) { response in
                let reads = DatabaseRoutesTests.parsed(response)?["reads"]?.arrayValue
                #expect(reads?.first?["error"]?["code"] == 400)
            }
        }
    }
}
