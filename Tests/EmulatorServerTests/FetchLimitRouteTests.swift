import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `PUT /emulator/v1/projects/{p}/remoteConfig:fetchLimit`.
@Suite("Remote Config fetch limit route")
struct FetchLimitRouteTests {
    static let fetchBody = #"{"app_instance_id": "instance-1", "app_id": "1:1:ios:1"}"#

    @Test("a limit throttles an instance with 429; {} lifts it; out-of-range values are 400, not a crash")
    func fetchLimit() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            let limit = "/emulator/v1/projects/demo/remoteConfig:fetchLimit"
            let fetch = "/v1/projects/demo/namespaces/firebase:fetch"
            for body in [#"{"count": 1e30, "windowSeconds": 60}"#, #"{"count": 5, "windowSeconds": 1e30}"#,
                #"{"count": -1, "windowSeconds": 60}"#, #"{"count": 1.5, "windowSeconds": 60}"#, #"{"count": 5}"#]
            {
                try await client.execute(uri: limit, method: .put, headers: [.authorization: "Bearer owner"], body: ByteBuffer(string: body)) {
                    #expect($0.status == .badRequest, "\(body)")
                }
            }
            try await client.execute(uri: limit, method: .put, headers: [.authorization: "Bearer owner"],
                body: ByteBuffer(string: #"{"count": 1, "windowSeconds": 3600}"#)) { #expect($0.status == .ok) }
            try await client.execute(uri: fetch, method: .post, body: ByteBuffer(string: Self.fetchBody)) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: fetch, method: .post, body: ByteBuffer(string: Self.fetchBody)) {
                #expect($0.status == .tooManyRequests)
            }
            try await client.execute(uri: limit, method: .put, headers: [.authorization: "Bearer owner"], body: ByteBuffer(string: "{}")) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: fetch, method: .post, body: ByteBuffer(string: Self.fetchBody)) {
                #expect($0.status == .ok)
            }
        }
    }
}
