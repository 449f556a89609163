// Measures the emulated Firebase services and prints one block of figures per section.
//
//   swift run -c release --package-path Benchmarks emulator-benchmark [section-name ...]
//
// With no arguments every section runs; otherwise only the sections whose names contain one of
// the arguments (case-insensitive). Each section is one function in its own file, registered in
// `sections` below.
import Foundation

/// One benchmark: a name (printed as the section's heading) and the function that runs it.
struct BenchmarkSection {
    let name: String
    let run: () async throws -> Void
}

let sections: [BenchmarkSection] = [
    BenchmarkSection(name: "template publishes per second", run: RemoteConfigPublishBenchmark.run),
    BenchmarkSection(name: "database writes per second with one onWrite trigger", run: DatabaseWriteBenchmark.run),
    BenchmarkSection(name: "topic fan-out", run: MessagingFanoutBenchmark.run),
    BenchmarkSection(name: "publish to every inbox", run: PublishToInboxBenchmark.run),
    // An hour of wall-clock time: run it on its own.
    BenchmarkSection(name: "schedule lateness (wall clock, SCHEDULE_MINUTES)", run: ScheduleLatenessBenchmark.run),
]

let filters = CommandLine.arguments.dropFirst().map { $0.lowercased() }
// The schedule section runs only when named: it takes an hour.
for section in sections where filters.isEmpty ? !section.name.hasPrefix("schedule") : filters.contains(where: section.name.lowercased().contains) {
    print("== \(section.name)")
    do {
        try await section.run()
    } catch {
        print("failed: \(error)")
    }
    print("")
}
