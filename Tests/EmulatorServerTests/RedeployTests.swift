import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import Synchronization
import Testing

/// Redeploying while events flow: the new worker takes over and no event is lost.
@Suite("Deployments: redeploying under load")
struct RedeployTests {
    @Test("a deploy of no function ('only' empty) is refused and leaves the deployment as it was")
    func emptyOnlyRefused() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await server.withRunning { _ in
            let manifest = try FunctionsManifest(json: DeployRoutesTests.manifest().serializedData())
            let deployed = try await server.deployments.deploy(binary: DeployRoutesTests.workerBinary, manifest: manifest)
            await #expect(throws: RegistryError.self) {
                _ = try await server.deployments.deploy(binary: DeployRoutesTests.workerBinary, manifest: manifest, only: [])
            }
            #expect(server.deployments.deployment?.time == deployed.time)
            #expect(server.deployments.deployment?.deployed == deployed.deployed)
            #expect(deployed.deployed.contains("pushConfig"))
        }
    }

    @Test("events published before, during and after a redeploy are all delivered")
    func redeployKeepsEvents() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        let token = try await emulator.messaging.registerDevice(platform: "android")
        _ = try await emulator.messaging.subscribe(tokens: [token], to: "PUSH_RC")
        let server = EmulatorServer(emulator: emulator)
        try await server.withRunning { _ in
            let manifest = try FunctionsManifest(json: DeployRoutesTests.manifest().serializedData())
            _ = try await server.deployments.deploy(binary: DeployRoutesTests.workerBinary, manifest: manifest)
            let first = try #require(server.deployments.deployment?.functions["pushConfig"]?.supervisors.first?.processIdentifier)

            let template = try RemoteConfigTemplate.decode(from: Data(#"{"parameters": {}}"#.utf8))
            for _ in 0..<10 { try await emulator.remoteConfig.publish(template, ifMatch: "*") }
            // Publish for as long as the redeploy is under way: the new worker starts, then takes over.
            let finished = Mutex(false)
            let redeploy = Task {
                defer { finished.withLock { $0 = true } }
                _ = try await server.deployments.deploy(binary: DeployRoutesTests.workerBinary, manifest: manifest)
            }
            var during = 0
            while !finished.withLock({ $0 }) {
                try await emulator.remoteConfig.publish(template, ifMatch: "*")
                during += 1
                await Task.yield()
            }
            try await redeploy.value
            for _ in 0..<10 { try await emulator.remoteConfig.publish(template, ifMatch: "*") }
            let publishes = 20 + during
            await emulator.waitUntilIdle()

            #expect(during >= 1, "some publishes happened while the redeploy ran")
            #expect(server.deployments.deployment?.functions["pushConfig"]?.supervisors.first?.processIdentifier != first)
            let log = try emulator.store.eventLog()
            #expect(log.count == publishes)
            #expect(log.allSatisfy { $0.done && $0.deliveries.allSatisfy { $0.status == "succeeded" } },
                "\(log.map(\.deliveries))")
            // At least once: a delivery cut off by the switch may be sent again to the new worker.
            #expect(try emulator.messaging.inbox(token: token).count >= publishes)
        }
    }

    @Test("an emulator restarted on the same data starts the functions deployed last and delivers what waited")
    func restartRestoresDeployment() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let token: String
        do {
            let emulator = try Emulator(project: "demo", directory: directory)
            token = try await emulator.messaging.registerDevice(platform: "ios")
            _ = try await emulator.messaging.subscribe(tokens: [token], to: "PUSH_RC")
            let server = EmulatorServer(emulator: emulator)
            try await server.withRunning { base in
                let (status, _) = try await DeployRoutesTests.post(
                    base.appendingPathComponent("emulator/v1/projects/demo/deployments"),
                    ["binary": .string(DeployRoutesTests.workerBinary.path), "manifest": try DeployRoutesTests.manifest()])
                #expect(status == 200)
            }
        }
        // Nothing runs now: the publish waits in the outbox.
        let emulator = try Emulator(project: "demo", directory: directory)
        try await emulator.remoteConfig.publish(RemoteConfigTemplate.decode(from: Data("{}".utf8)), ifMatch: "*")
        let server = EmulatorServer(emulator: emulator)
        try await server.withRunning { _ in
            #expect(server.deployments.deployment?.functions["pushConfig"]?.supervisors.first?.status.status == .running)
            #expect(server.deployments.deployment?.binary == DeployRoutesTests.workerBinary)
            await emulator.waitUntilIdle()
            #expect(try emulator.messaging.inbox(token: token).map(\.data) == [["CONFIG_STATE": "STALE"]])
            let log = try emulator.store.eventLog()
            #expect(log.map(\.done) == [true])
            #expect(log.map(\.recoveries) == [1], "the event was sent by the restart's recovery")
        }
    }

    #if os(Linux)
    @Test("an emulator started after a crash ends the worker the crashed one left running")
    func endsStaleWorker() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A worker that ignores SIGTERM and never watches its input, as a non-Swift one might.
        let folder = try ScriptBuildFolder()
        let script = try folder.script("stubborn", "trap '' TERM INT HUP; while :; do sleep 1; done")
        let stale = Process()
        stale.executableURL = script
        stale.standardInput = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        stale.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        try stale.run()
        do {
            let crashed = try Emulator(project: "demo", directory: directory)
            try await crashed.store.saveDeployment(StoredDeployment(binary: script.path, manifest: Data("{}".utf8),
                only: nil, time: Date()))
            try await crashed.store.recordWorkerProcess(stale.processIdentifier, binary: script.path)
        }
        var configuration = EmulatorServer.Configuration()
        configuration.restoresDeployment = false
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: directory),
            configuration: configuration)
        try await server.withRunning { _ in
            var statuses = exited.stream.makeAsyncIterator()
            _ = await statuses.next()
            #expect(stale.terminationReason == .uncaughtSignal)
        }
        #expect(try server.emulator.store.workerProcesses().isEmpty)
    }
    #endif
}
