import CloudFunctions
import FirebaseEmulator
import Foundation
import Synchronization

/// Database writes per second with one onWrite trigger: `count` sets of a small object at
/// `/scores/{i}` with a trigger on `/scores/{id}` registered, so every write also computes
/// and commits one event to the outbox (no bus attached); in memory and on disk. Then the same
/// writes with the function deployed in process, timed until every event has run it and is
/// marked done.
enum DatabaseWriteBenchmark {
    static func run() async throws {
        try await run(count: 20_000)
        try await runDelivered(count: 20_000)
    }

    static func runDelivered(count: Int) async throws {
        print("store      writes   seconds   writes/s (function run, events done)")
        for onDisk in [false, true] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("db-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let emulator = try Emulator(project: "bench", directory: onDisk ? directory : nil)
            async let running: Void = emulator.run()
            let ran = Mutex(0)
            var functions = FunctionRegistry()
            functions["onScore"] = Database.ref("/scores/{id}").onWrite { _, _ in ran.withLock { $0 += 1 } }
            try await emulator.deploy(functions)
            let start = ContinuousClock.now
            for index in 0..<count {
                let value: JSONValue = ["playerName": .string("p\(index % 100)"), "score": .number(Double(index))]
                try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "/scores/\(index)",
                    value: value)
            }
            await emulator.waitUntilIdle()
            let elapsed = ContinuousClock.now - start
            precondition(ran.withLock { $0 } == count, "every write runs the function once")
            let pending = try emulator.store.pendingEvents()
            precondition(pending.isEmpty, "every event is done")
            await emulator.shutdown()
            await running
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(
                [
                    (onDisk ? "disk" : "memory").padding(toLength: 8, withPad: " ", startingAt: 0),
                    pad(String(count), 9), pad(String(format: "%.2f", seconds), 10),
                    pad(String(Int(Double(count) / seconds)), 11),
                ].joined())
        }
    }

    static func run(count: Int) async throws {
        print("store      writes   seconds   writes/s   events in outbox")
        for onDisk in [false, true] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("db-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let emulator = try Emulator(project: "bench", directory: onDisk ? directory : nil)
            let store = emulator.store
            let service = emulator.database
            let trigger = Database.ref("/scores/{id}").onWrite { _, _ in }.eventTrigger!
            service.setTriggers([trigger])
            let namespace = "bench-default-rtdb"
            let start = ContinuousClock.now
            for index in 0..<count {
                let value: JSONValue = ["player": .string("p\(index % 100)"), "points": .number(Double(index))]
                try await service.set(namespace: namespace, path: "/scores/\(index)", value: value)
            }
            let elapsed = ContinuousClock.now - start
            let events = try store.pendingEvents(limit: count + 1).count
            precondition(events == count, "expected one event per write, got \(events)")
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(
                [
                    (onDisk ? "disk" : "memory").padding(toLength: 8, withPad: " ", startingAt: 0),
                    pad(String(count), 9), pad(String(format: "%.2f", seconds), 10),
                    pad(String(Int(Double(count) / seconds)), 11), pad(String(events), 19),
                ].joined())
        }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
