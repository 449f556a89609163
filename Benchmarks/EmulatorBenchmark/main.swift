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
]

let filters = CommandLine.arguments.dropFirst().map { $0.lowercased() }
for section in sections where filters.isEmpty || filters.contains(where: section.name.lowercased().contains) {
    print("== \(section.name)")
    do {
        try await section.run()
    } catch {
        print("failed: \(error)")
    }
    print("")
}
