// Pushes events through the in-process EventBus and prints throughput and dispatch latency.
//
//   swift run -c release --package-path Benchmarks bus-benchmark [events-per-run [only-this-function-count [only-this-scenario]]]
//
// (scenarios are named match-one, fan-out, typed and database on the command line). BUS_DEDUP_WINDOW=N sets
// the bus's deduplication window (100,000 unless set), to see what the duplicate check costs;
// BUS_LATENCY_SAMPLES=N the number of latency samples (20,000 unless set; 0 to profile throughput alone).
//
// Scenarios, each with 1, 10 and 100 registered functions:
// - "match one": every function listens on its own path; each event matches exactly one.
// - "fan-out": every function listens on the same path; each event goes to all of them.
// - "typed": one RemoteConfig.onUpdate function (the others take another event type), so each
//   delivery also decodes the TemplateVersion payload from JSON, as an author's typed function does.
// - "database": the same with one Database.ref("/scores/{scoreId}").onWrite reading the change.
// Handlers count their deliveries (and, in the latency runs only, note the time they start).
// Throughput publishes in batches of 1,000 (one publish(contentsOf:) call each, as a dispatcher
// draining an outbox does), keeping at most four batches undelivered so publishing and
// delivering overlap as they do under sustained load, and waits for the bus to be idle at the end.
// Latency publishes one event at a time and measures from publish() to the handler's start.
import CloudEvents
import CloudFunctions
import FunctionsBus
import Foundation
import Synchronization

let eventsPerRun = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let onlyFunctionCount = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init)
let onlyScenario = CommandLine.arguments.dropFirst(3).first
let latencySamples = ProcessInfo.processInfo.environment["BUS_LATENCY_SAMPLES"].flatMap(Int.init) ?? 20_000
/// Latency samples taken 1 ms apart, so that each event finds its drainer parked.
let spacedSamples = min(latencySamples, ProcessInfo.processInfo.environment["BUS_SPACED_SAMPLES"].flatMap(Int.init) ?? 1_000)

final class StartTimes: Sendable {
    let last = Atomic<UInt64>(0)
    /// Deliveries started so far.
    let count = Atomic<Int>(0)
    /// Whether handlers note when they start: only for the latency runs, which read it. (Reading
    /// the clock at every delivery of a throughput run was about 5 % of the drainer's samples.)
    let timing = Atomic<Bool>(false)

    func record() {
        if timing.load(ordering: .relaxed) { last.store(nanos(), ordering: .relaxed) }
        count.add(1, ordering: .relaxed)
    }
}

func nanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

enum Scenario: String, CaseIterable {
    case matchOne = "match one"
    case fanOut = "fan-out"
    case typed = "typed (decode)"
    case database = "database"

    /// The scenario's name on the command line.
    var argument: String {
        switch self {
        case .matchOne: "match-one"
        case .fanOut: "fan-out"
        case .typed: "typed"
        case .database: "database"
        }
    }
}

func registry(_ scenario: Scenario, count: Int, starts: StartTimes) -> FunctionRegistry {
    var functions = FunctionRegistry()
    for index in 0..<count {
        switch scenario {
        case .matchOne:
            functions["f\(index)"] = Eventarc.onEvent(type: "bench", pathPatterns: ["ref": "lane\(index)/{id}"]) { _, _ in
                starts.record()
            }
        case .fanOut:
            functions["f\(index)"] = Eventarc.onEvent(type: "bench", pathPatterns: ["ref": "lane/{id}"]) { _, _ in
                starts.record()
            }
        case .typed:
            // One typed function; the others take another event type, so each event matches one.
            if index == 0 {
                functions["f0"] = RemoteConfig.onUpdate { version, _ in
                    guard version.versionNumber > 0 else { throw CallableError(.invalidArgument, "no version") }
                    starts.record()
                }
            } else {
                functions["f\(index)"] = Eventarc.onEvent(type: "bench.other\(index)") { _, _ in starts.record() }
            }
        case .database:
            if index == 0 {
                functions["f0"] = Database.ref("/scores/{scoreId}").onWrite { change, context in
                    guard change.after.child("score").val().numberValue != nil, context.params["scoreId"] != nil else {
                        throw CallableError(.invalidArgument, "no score")
                    }
                    starts.record()
                }
            } else {
                functions["f\(index)"] = Eventarc.onEvent(type: "bench.other\(index)") { _, _ in starts.record() }
            }
        }
    }
    return functions
}

func makeEvents(_ scenario: Scenario, count: Int) -> [CloudEvent] {
    let version = try! JSONEncoder().encode(TemplateVersion(versionNumber: 42, updateTime: Date(),
        updateUser: RemoteConfigUser(name: "n", email: "e@x.com", imageUrl: "i"), updateType: .incrementalUpdate))
    return (0..<count).map { index in
        switch scenario {
        case .matchOne, .fanOut:
            let ref = scenario == .matchOne ? "lane0/\(index)" : "lane/\(index)"
            return CloudEvent(id: "\(index)", source: "/bench", type: "bench", time: Date(), extensions: ["ref": .string(ref)],
                data: Data("{}".utf8))
        case .typed:
            return CloudEvent(id: "\(index)", source: "/bench", type: FirebaseEventType.remoteConfigUpdated, time: Date(),
                subject: "lane0", data: version)
        case .database:
            let write = #"{"data":{"playerName":"p1","score":4,"cheatMode":false},"delta":{"playerName":"p1","score":"#
                + "\(index % 1000)" + #","cheatMode":false}}"#
            return CloudEvent(id: "\(index)", source: "//firebasedatabase.googleapis.com/projects/_/instances/demo",
                type: FirebaseEventType.databaseWritten, time: Date(),
                extensions: ["ref": .string("scores/s\(index)"), "instance": "demo"], data: Data(write.utf8))
        }
    }
}

func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
}

print("bus-benchmark: \(eventsPerRun) events per throughput run, \(latencySamples) latency samples, "
    + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
print("latency: publish → handler start, back to back (p50, p99), and 1 ms apart (spaced p50, p99)")
print("scenario        functions    events/s   deliveries/s   p50 µs   p99 µs  spaced p50  spaced p99")
for scenario in Scenario.allCases where onlyScenario == nil || onlyScenario == scenario.argument {
    for count in [1, 10, 100] where onlyFunctionCount == nil || onlyFunctionCount == count {
        let starts = StartTimes()
        var configuration = EventBus.Configuration()
        if let window = ProcessInfo.processInfo.environment["BUS_DEDUP_WINDOW"].flatMap(Int.init) {
            configuration.deduplicationWindow = window
        }
        let bus = try EventBus(functions: registry(scenario, count: count, starts: starts), configuration: configuration)
        async let running: Void = bus.run()
        let total = scenario == .fanOut ? max(10_000, eventsPerRun / count) : eventsPerRun
        let events = makeEvents(scenario, count: total + latencySamples)

        // Throughput.
        let begin = nanos()
        var index = 0
        let perFunction = scenario == .fanOut ? count : 1
        while index < total {
            let end = min(total, index + 1000)
            bus.publish(contentsOf: events[index..<end])
            index = end
            while (index - 4000) * perFunction > starts.count.load(ordering: .relaxed) { await Task.yield() }
        }
        await bus.waitUntilIdle()
        let seconds = Double(nanos() - begin) / 1e9

        /// Publish → handler start, one event at a time, each `gap` after the last one's start
        /// (none: back to back); `prefix` names the events anew, so none is a duplicate.
        func measureLatency(_ events: ArraySlice<CloudEvent>, gap: Duration?, prefix: String) async -> [UInt64] {
            var samples: [UInt64] = []
            samples.reserveCapacity(events.count)
            for event in events {
                if let gap { try? await Task.sleep(for: gap) }
                var fresh = event
                fresh.id = prefix + event.id
                let published = nanos()
                bus.publish(fresh)
                await bus.waitUntilIdle()
                samples.append(starts.last.load(ordering: .relaxed) &- published)
            }
            samples.sort()
            return samples.isEmpty ? [0] : samples
        }
        starts.timing.store(true, ordering: .relaxed)
        let latencies = await measureLatency(events[total...], gap: nil, prefix: "")
        // The same, one event every millisecond: what an event arriving alone waits.
        let spaced = await measureLatency(events[total...].prefix(spacedSamples), gap: .milliseconds(1), prefix: "spaced-")
        await bus.shutdown()
        await running
        let line = [
            scenario.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0),
            String(count).leftPad(9),
            String(Int(Double(total) / seconds)).leftPad(12),
            String(Int(Double(total * perFunction) / seconds)).leftPad(15),
            String(format: "%.1f", percentile(latencies, 0.5)).leftPad(9),
            String(format: "%.1f", percentile(latencies, 0.99)).leftPad(9),
            String(format: "%.1f", percentile(spaced, 0.5)).leftPad(12),
            String(format: "%.1f", percentile(spaced, 0.99)).leftPad(12),
        ]
        print(line.joined())
    }
}

extension String {
    func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
