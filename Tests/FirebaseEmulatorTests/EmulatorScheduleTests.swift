import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

/// The emulator's schedules: fired on its clock through the outbox, and not forgotten across a restart.
@Suite("Emulator: schedules")
struct EmulatorScheduleTests {
    /// A registry with an hourly function that reports each firing's schedule time.
    static func hourly(_ fired: AsyncStream<String>.Continuation) -> FunctionRegistry {
        var functions = FunctionRegistry()
        functions["hourly"] = Scheduler.cron("0 * * * *").onRun { event, _ in
            fired.yield(RFC3339Timestamp.string(from: event.scheduleTime))
        }
        return functions
    }

    /// An in-memory emulator on a manual clock at 2026-11-28T20:30Z, and a stream of firings.
    static func inMemory() throws
        -> (Emulator, ManualClock, AsyncStream<String>.Continuation, AsyncStream<String>)
    {
        let (firings, fired) = AsyncStream.makeStream(of: String.self)
        let clock = ManualClock(now: RFC3339Timestamp.date(from: "2026-11-28T20:30:00Z")!)
        return (try Emulator(project: "demo-project", directory: nil, clock: clock), clock, fired, firings)
    }

    @Test("a schedule fires on the clock; a restart after days fires the latest missed moment once, then goes on",
        .timeLimit(.minutes(1)))
    func firesAndCatchesUpOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = RFC3339Timestamp.date(from: "2026-11-28T20:30:00Z")!
        let (firings, fired) = AsyncStream.makeStream(of: String.self)
        var iterator = firings.makeAsyncIterator()

        let clock = ManualClock(now: start)
        let first = try Emulator(project: "demo-project", directory: directory, clock: clock)
        try await first.withRunning {
            try await first.deploy(Self.hourly(fired))
            #expect(clock.now == start, "deployed at 20:30: nothing of the past fires")
            clock.advance(by: .seconds(30 * 60))
            #expect(await iterator.next() == "2026-11-28T21:00:00.000Z")
            await first.waitUntilIdle()
        }

        // Down for two days and a half: the next start fires once, for 2026-12-01T08:00.
        let later = ManualClock(now: RFC3339Timestamp.date(from: "2026-12-01T08:20:00Z")!)
        let second = try Emulator(project: "demo-project", directory: directory, clock: later)
        try await second.withRunning {
            try await second.deploy(Self.hourly(fired))
            #expect(await iterator.next() == "2026-12-01T08:00:00.000Z")
            later.advance(by: .seconds(40 * 60))
            #expect(await iterator.next() == "2026-12-01T09:00:00.000Z", "no other missed moment came before it")
            await second.waitUntilIdle()
            let log = try second.store.eventLog().filter { $0.entry.event.type == Scheduler.eventType }
            #expect(log.map { $0.entry.event[attribute: Scheduler.scheduleTimeAttribute] }
                == ["2026-11-28T21:00:00.000Z", "2026-12-01T08:00:00.000Z", "2026-12-01T09:00:00.000Z"])
            // The late firing's age counts from when it fired, not from the moment it was for.
            #expect(log.map { RFC3339Timestamp.string(from: $0.entry.event.time!) }
                == ["2026-11-28T21:00:00.000Z", "2026-12-01T08:20:00.000Z", "2026-12-01T09:00:00.000Z"])
            #expect(log.allSatisfy { $0.done })
        }
    }

    @Test("a clock that jumps hours ahead (a machine asleep) fires the latest moment missed once, not each", .timeLimit(.minutes(1)))
    func lateWakeFiresOnce() async throws {
        let (emulator, clock, fired, firings) = try Self.inMemory()
        var iterator = firings.makeAsyncIterator()
        try await emulator.withRunning {
            try await emulator.deploy(Self.hourly(fired))
            clock.advance(by: .seconds(8 * 3600))
            #expect(await iterator.next() == "2026-11-29T04:00:00.000Z")
            clock.advance(by: .seconds(3600))
            #expect(await iterator.next() == "2026-11-29T05:00:00.000Z", "no other missed moment came before it")
        }
    }

    @Test("a schedule removed by a redeploy and deployed again starts afresh: nothing missed fires", .timeLimit(.minutes(1)))
    func removedThenRestored() async throws {
        let (emulator, clock, fired, firings) = try Self.inMemory()
        var iterator = firings.makeAsyncIterator()
        try await emulator.withRunning {
            try await emulator.deploy(Self.hourly(fired))
            clock.advance(by: .seconds(30 * 60))
            #expect(await iterator.next() == "2026-11-28T21:00:00.000Z")
            try await emulator.deploy(FunctionRegistry())
            clock.advance(by: .seconds(5 * 3600))
            try await emulator.deploy(Self.hourly(fired))
            clock.advance(by: .seconds(3600))
            #expect(await iterator.next() == "2026-11-29T03:00:00.000Z")
        }
    }
}
