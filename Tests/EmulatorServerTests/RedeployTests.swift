import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import Testing

/// Redeploying while events flow: the new worker takes over and no event is lost.
@Suite("Deployments: redeploying under load")
struct RedeployTests {
    @Test("events published before, during and after a redeploy are all delivered")
    func redeployKeepsEvents() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        let token = try emulator.messaging.registerDevice(platform: "android")
        _ = try emulator.messaging.subscribe(tokens: [token], to: "PUSH_RC")
        let server = EmulatorServer(emulator: emulator)
        try await server.withRunning { _ in
            let manifest = try FunctionsManifest(json: DeployRoutesTests.manifest().serializedData())
            _ = try await server.deployments.deploy(binary: DeployRoutesTests.workerBinary, manifest: manifest)
            let first = try #require(server.deployments.deployment?.supervisor.processIdentifier)

            let template = try RemoteConfigTemplate.decode(from: Data(#"{"parameters": {}}"#.utf8))
            let publishes = 30
            async let redeployed: Void = {
                _ = try await server.deployments.deploy(binary: DeployRoutesTests.workerBinary, manifest: manifest)
            }()
            for _ in 0..<publishes {
                try emulator.remoteConfig.publish(template, ifMatch: "*")
                await Task.yield()
            }
            try await redeployed
            await emulator.waitUntilIdle()

            #expect(server.deployments.deployment?.supervisor.processIdentifier != first)
            let log = try emulator.store.eventLog()
            #expect(log.count == publishes)
            #expect(log.allSatisfy { $0.done && $0.deliveries.allSatisfy { $0.status == "succeeded" } },
                "\(log.map(\.deliveries))")
            // At least once: a delivery cut off by the switch may be sent again to the new worker.
            #expect(try emulator.messaging.inbox(token: token).count >= publishes)
        }
    }
}
