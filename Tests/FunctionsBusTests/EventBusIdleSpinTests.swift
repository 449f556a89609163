import CloudEvents
import CloudFunctions
@testable import FunctionsBus
import Foundation
import Synchronization
import Testing

/// A drainer that runs out of work watches its lane before it parks (`idleSpin`). These tests
/// watch for two minutes, beyond their one-minute time limit, so that a watch that misses its
/// event or outlives a shutdown fails them rather than passing late. They run one after the
/// other: one drainer in the process watches at a time.
@Suite("Event bus: an idle drainer watching for work", .serialized)
struct EventBusIdleSpinTests {
    static var watchingLong: EventBus.Configuration {
        var configuration = EventBus.Configuration()
        configuration.idleSpin = .seconds(120)
        return configuration
    }

    static func write(_ ref: String) -> CloudEvent {
        CloudEvent.databaseWrite(type: FirebaseEventType.databaseWritten, instance: "db", ref: ref, before: .null,
            delta: ["v": 1], id: UUID().uuidString, time: Date())
    }

    @Test("an event queued while the function's drainer watches starts on that drainer, round after round",
          .timeLimit(.minutes(1)))
    func watchingDrainerTakesWork() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").onWrite { _, context in calls.add(context.params["x"] ?? "") }
        let bus = try EventBus(functions: functions, configuration: Self.watchingLong)
        // After each event the drainer watches: neither parked nor running, so nobody wakes or
        // starts another for the next event. Unless the watch sees it, that event waits out
        // the watch, and the test its time limit.
        for index in 0..<100 {
            bus.publish(Self.write("a/\(index)"))
            await bus.waitUntilIdle()
        }
        #expect(calls.all == (0..<100).map(String.init))
        if ProcessInfo.processInfo.activeProcessorCount > 1 {
            // Each watch that found its event earned credit; without a watch, none would have.
            // (Another bus of the process may hold the one watch for a moment, never for long.)
            #expect(bus.lanes[0].spinCredit.load(ordering: .relaxed) == BusLane.maximumSpinCredit)
        }
        await bus.shutdown()
    }

    @Test("shutdown ends a drainer watching for work at once", .timeLimit(.minutes(1)))
    func shutdownEndsWatchingDrainer() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").onWrite { _, _ in calls.add("x") }
        let bus = try EventBus(functions: functions, configuration: Self.watchingLong)
        bus.publish(Self.write("a/1"))
        await bus.waitUntilIdle()
        // The drainer now watches for two minutes, unless shutdown ends it.
        await bus.shutdown()
        #expect(calls.all == ["x"])
        #expect(bus.publish(Self.write("a/2")).functions.isEmpty)
    }
}
