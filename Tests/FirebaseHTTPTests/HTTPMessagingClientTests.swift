import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import FunctionsBuiltins
import FirebaseHTTP
import FunctionsWorker
import Hummingbird
import Testing

@Suite("Workers' HTTP Admin clients against a live emulator")
struct HTTPMessagingClientTests {
    @Test("context.messaging over HTTP reaches the emulator's devices; errors carry the service's message")
    func messagingOverHTTP() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        let token = try await emulator.messaging.registerDevice(platform: "ios")
        _ = try await emulator.messaging.subscribe(tokens: [token], to: "PUSH_RC")
        try await EmulatorServer(emulator: emulator).withRunning { base in
            let admin = try FunctionsWorker.adminClients(environment: [
                "FUNCTIONS_EMULATOR_URL": base.absoluteString, "GCLOUD_PROJECT": "demo",
            ])
            let name = try await admin.messaging.send(PushConfig().message)
            #expect(name.hasPrefix("projects/demo/messages/"))
            #expect(try emulator.messaging.inbox(token: token).map(\.data) == [["CONFIG_STATE": "STALE"]])
            await #expect {
                try await admin.messaging.send(Message(.topic("bad topic!"), data: [:]))
            } throws: { error in
                (error as? AdminHTTPError)?.status == 400
            }
        }
    }

    @Test("an emulator without a project: the clients say what is missing")
    func unconfigured() async throws {
        // GCE_METADATA_HOST: were the mode rule broken, no call would reach a real metadata server.
        let admin = try FunctionsWorker.adminClients(environment: [
            "FUNCTIONS_EMULATOR_URL": "http://127.0.0.1:1", "GCE_METADATA_HOST": "127.0.0.1:9",
        ])
        await #expect(throws: AdminClientError.self) { try await admin.messaging.send(PushConfig().message) }
    }
}
