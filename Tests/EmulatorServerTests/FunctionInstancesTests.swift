import CloudEvents
import CloudFunctions
@testable import EmulatorServer
import FirebaseEmulator
import Foundation
import FunctionsBus
import Logging
import Testing

/// Each deployed function runs in worker processes of its own, as on Cloud Run: scaled out
/// when its events outnumber its concurrency (up to maxInstances), back in when idle, and
/// unaffected by another function's crash. The worker is Tests/Fixtures/RehearsalWorker.
@Suite("Deployments: one function, its own instances", .timeLimit(.minutes(3)))
struct FunctionInstancesTests {
    static var workerBinary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("rehearsal-worker")
    }

    static func manifest() throws -> FunctionsManifest {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = workerBinary
        process.environment = ["FUNCTIONS_MANIFEST_OUTPUT_PATH": file.path]
        try process.run()
        process.waitUntilExit()
        return try FunctionsManifest(json: Data(contentsOf: file))
    }

    static func publish(_ emulator: Emulator, description: String) async throws {
        let template = try RemoteConfigTemplate.decode(
            from: Data(#"{"parameters": {}, "version": {"description": "\#(description)"}}"#.utf8))
        try await emulator.remoteConfig.publish(template, ifMatch: "*")
    }

    @Test("every function has its own process; more instances under load, up to maxInstances, fewer when idle",
        .timeLimit(.minutes(2)))
    func scaling() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        var configuration = EmulatorServer.Configuration()
        configuration.instanceIdleTimeout = .milliseconds(500)
        let server = EmulatorServer(emulator: emulator, configuration: configuration)
        try await server.withRunning { _ in
            let deployment = try await server.deployments.deploy(binary: Self.workerBinary, manifest: Self.manifest())
            let pools = deployment.functions
            #expect(Set(pools.keys) == ["configUpdated", "oneAtATime", "scoreWritten", "mainActor"])
            let pids = pools.values.flatMap(\.supervisors).compactMap(\.processIdentifier)
            #expect(pids.count == 4 && Set(pids).count == 4, "one process per function: \(pids)")
            let oneAtATime = try #require(pools["oneAtATime"])
            #expect(oneAtATime.concurrency == 1 && oneAtATime.maximum == 3 && oneAtATime.minimum == 1)
            // Without maxInstances: one instance per core (2 to 10) for a function taking 80 events
            // at once, as many instances as a machine's cores can use.
            let scoreWritten = try #require(pools["scoreWritten"])
            let cores = ProcessInfo.processInfo.activeProcessorCount
            #expect(scoreWritten.concurrency == 80 && scoreWritten.maximum == min(10, max(2, cores)))

            // Five slow events at once: one instance takes one, so three run (the maximum), two wait.
            // Slow for oneAtATime only: configUpdated, with its 3 s timeout, handles them at once.
            for _ in 0..<5 { try await Self.publish(emulator, description: "slow-one-at-a-time") }
            // Each new instance's process is recorded in the store once it runs.
            await emulator.store.waitUntil { oneAtATime.supervisors.count == 3 }
            #expect(oneAtATime.supervisors.count == 3)
            #expect(oneAtATime.load.allSatisfy { $0.inFlight <= 1 })
            await emulator.waitUntilIdle()
            #expect(try emulator.store.eventLog().allSatisfy { entry in
                entry.done && entry.deliveries.allSatisfy { $0.status == "succeeded" }
            })
            #expect(oneAtATime.supervisors.count <= 3)
            // Idle past the timeout: back to one.
            await emulator.store.waitUntil { oneAtATime.supervisors.count == 1 }
            #expect(oneAtATime.supervisors.count == 1)
            #expect(pools["configUpdated"]?.supervisors.count == 1)
        }
    }

    @Test("without maxInstances, a function taking one event at a time gets 10 instances, others one per core",
        arguments: [1, 2, 4, 8, 16, 64])
    func defaultMaximum(cores: Int) {
        #expect(FunctionInstances.defaultMaximum(concurrency: 1, cores: cores) == 10)
        #expect(FunctionInstances.defaultMaximum(concurrency: 80, cores: cores) == [1: 2, 2: 2, 4: 4, 8: 8, 16: 10, 64: 10][cores])
        #expect(FunctionInstances.defaultMaximum(concurrency: 2, cores: cores) == min(10, max(2, cores)))
    }

    @Test("an event goes to the busiest instance with room, as Cloud Run fills one before the next")
    func packing() async throws {
        let tasks = TaskScope()
        let scope = Task { await tasks.run() }
        let logger = Logger(label: "test")
        let environment = [
            "PORT": "0", "HOST": "127.0.0.1", "FUNCTION_TARGET": "configUpdated", "GCLOUD_PROJECT": "demo",
            "FUNCTIONS_STOP_ON_STDIN_EOF": "true",
        ]
        let pool = FunctionInstances(
            function: "configUpdated", concurrency: 2, minimum: 2, maximum: 2, idleTimeout: .seconds(60),
            logger: logger, tasks: tasks, deliveries: DeliveryBatcher(function: "configUpdated", clock: SystemClock())
        ) { WorkerSupervisor(binary: Self.workerBinary, environment: environment, logger: logger, tasks: tasks) }
        // Should an expectation throw: no worker left running, and the scope ends.
        defer {
            pool.stop()
            tasks.finish()
        }
        try await pool.start()
        let first = try await pool.acquire()
        let second = try await pool.acquire()
        // Both to the same instance: the other stays idle (and would be stopped once past its timeout).
        #expect(first === second)
        #expect(pool.load.map(\.inFlight) == [2, 0])
        // It is full: the next goes to the other.
        let third = try await pool.acquire()
        #expect(third !== first)
        #expect(pool.load.map(\.inFlight) == [2, 1])
        // The first instance done with its events: the second, now the busiest with room, takes the next.
        pool.release(first)
        pool.release(second)
        #expect(try await pool.acquire() === third)
        #expect(pool.load.map(\.inFlight) == [0, 2])
        await pool.stopAndWait()
        tasks.finish()
        await scope.value
    }

    @Test("a function's crash does not stop another function's events")
    func isolation() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        let server = EmulatorServer(emulator: emulator)
        try await server.withRunning { _ in
            let deployment = try await server.deployments.deploy(binary: Self.workerBinary, manifest: Self.manifest())
            let config = try #require(deployment.functions["configUpdated"]?.supervisors.first?.processIdentifier)
            let scores = try #require(deployment.functions["scoreWritten"]?.supervisors.first?.processIdentifier)
            #expect(config != scores)
            kill(config, SIGKILL)
            try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "scores/s1", value: ["score": 5])
            await emulator.waitUntilIdle()
            let log = try emulator.store.eventLog()
            let written = try #require(log.first { $0.entry.event.type == FirebaseEventType.databaseWritten })
            #expect(written.done && written.deliveries.map(\.status) == ["succeeded"])
            #expect(deployment.functions["scoreWritten"]?.supervisors.first?.processIdentifier == scores,
                "the other function's process kept running")
            #expect(deployment.functions["scoreWritten"]?.supervisors.first?.status.restarts == 0)
        }
    }
}
