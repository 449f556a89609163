import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import RemoteConfigClient
import Testing

/// The whole loop over HTTP: publish → the deployed pushConfig worker pings PUSH_RC → devices
/// mark their config stale → their next launch fetches the new version; the rest keep their cache.
@Suite("The STALE loop, end to end", .timeLimit(.minutes(5)))
struct StaleLoopEndToEndTests {
    static var workerBinary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("push-config-worker")
    }

    static func deployPushConfig(_ running: RunningEmulator) async throws {
        let manifestFile = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: manifestFile) }
        let process = Process()
        process.executableURL = workerBinary
        process.environment = ["FUNCTIONS_MANIFEST_OUTPUT_PATH": manifestFile.path]
        try process.run()
        process.waitUntilExit()
        let manifest = try FunctionsManifest(json: Data(contentsOf: manifestFile))
        _ = try await running.server.deployments.deploy(binary: workerBinary, manifest: manifest)
    }

    @Test("50 subscribed devices go stale and refetch on their next launch; 5 others keep their cache; rollback repeats it")
    func staleLoop() async throws {
        try await RunningEmulator.with { running in
            try await Self.deployPushConfig(running)
            let clock = TestClock()
            try await running.publish(["welcome": "hello", "color": "green"])
            let subscribed = try await RemoteConfigDevice.register(count: 50, topic: "PUSH_RC", backend: running.base,
                project: "demo") { _ in running.client(clock: clock) }
            let others = try await RemoteConfigDevice.register(count: 5, topic: nil, backend: running.base,
                project: "demo") { _ in running.client(clock: clock) }
            let devices = subscribed + others
            for device in devices { #expect(await device.launch() == .successFetchedFromRemote) }
            #expect(devices.allSatisfy { $0.client.activeTemplateVersion == 1 })

            let listener = subscribed[0].client
            let (updates, continuation) = AsyncStream.makeStream(of: Result<RemoteConfigUpdate, RemoteConfigError>.self)
            let registration = listener.addOnConfigUpdateListener { continuation.yield($0) }
            var iterator = updates.makeAsyncIterator()

            // Publish: pushConfig pings exactly the 50.
            try await running.publish(["welcome": "hi", "color": "green", "banner": "sale"])
            await running.emulator.waitUntilIdle()
            // The listener's realtime fetch comes first, so that it cannot race the push.
            #expect(try #require(await iterator.next()).map(\.updatedKeys) == .success(["welcome", "banner"]))
            for device in devices { try await device.receivePushes() }
            let notStale = subscribed.indices.filter { !subscribed[$0].client.isStale }
            #expect(notStale.isEmpty, "not stale: \(notStale)")
            #expect(others.allSatisfy { !$0.client.isStale })

            // Next launch, still inside the 12-hour interval: the stale ones fetch version 2.
            clock.advance(by: 60)
            for device in subscribed { #expect(await device.launch() == .successFetchedFromRemote) }
            for device in others { #expect(await device.launch() == .successUsingPreFetchedData) }
            #expect(subscribed.allSatisfy { $0.client.activeTemplateVersion == 2 && !$0.client.isStale })
            #expect(subscribed.allSatisfy { $0.client["welcome"].stringValue == "hi" })
            #expect(others.allSatisfy { $0.client.activeTemplateVersion == 1 && $0.client["welcome"].stringValue == "hello" })

            // Once their interval has passed, the others fetch it too.
            clock.advance(by: 43_200)
            for device in others { #expect(await device.launch() == .successFetchedFromRemote) }
            #expect(others.allSatisfy { $0.client.activeTemplateVersion == 2 })

            // Rollback to version 1: published as version 3, pinged, refetched.
            _ = try await running.emulator.remoteConfig.rollback(to: 1)
            await running.emulator.waitUntilIdle()
            #expect(try #require(await iterator.next()).map(\.updatedKeys) == .success(["welcome", "banner"]))
            for device in devices { try await device.receivePushes() }
            #expect(subscribed.allSatisfy { $0.client.isStale })
            #expect(others.allSatisfy { !$0.client.isStale })
            clock.advance(by: 60)
            for device in subscribed { #expect(await device.launch() == .successFetchedFromRemote) }
            #expect(subscribed.allSatisfy { $0.client.activeTemplateVersion == 3 })
            #expect(subscribed.allSatisfy { $0.client["welcome"].stringValue == "hello" })
            #expect(others.allSatisfy { $0.client.activeTemplateVersion == 2 })

            let inboxes = try subscribed.map { try running.emulator.messaging.inbox(token: $0.token).count }
            #expect(inboxes.allSatisfy { $0 == 2 })
            let otherInboxes = try others.map { try running.emulator.messaging.inbox(token: $0.token).count }
            #expect(otherInboxes.allSatisfy { $0 == 0 })
            registration.remove()
            continuation.finish()
        }
    }
}
