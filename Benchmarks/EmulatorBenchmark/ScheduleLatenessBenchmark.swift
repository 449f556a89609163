import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Synchronization

/// How late the emulator's schedule firings run: an in-memory emulator on the wall clock with
/// one function on `* * * * *` (every minute), for `SCHEDULE_MINUTES` firings (default 60, an
/// hour). Each firing's lateness is the moment its handler starts minus the moment it was
/// scheduled for: the runner's wake-up, the outbox commit, the bus and the handler's start.
enum ScheduleLatenessBenchmark {
    static func run() async throws {
        let minutes = Int(ProcessInfo.processInfo.environment["SCHEDULE_MINUTES"] ?? "") ?? 60
        let lateness = Mutex<[Double]>([])
        let (done, finished) = AsyncStream.makeStream(of: Void.self)
        var functions = FunctionRegistry()
        functions["everyMinute"] = Scheduler.cron("* * * * *").onRun { event, _ in
            let late = Date().timeIntervalSince(event.scheduleTime) * 1000
            let count = lateness.withLock { $0.append(late); return $0.count }
            print(String(format: "firing %d at %@: %.2f ms late", count, RFC3339Timestamp.string(from: event.scheduleTime), late))
            if count == minutes { finished.finish() }
        }
        let emulator = try Emulator(project: "demo-project", directory: nil)
        try await emulator.withRunning {
            try await emulator.deploy(functions)
            for await _ in done {}
        }
        let sorted = lateness.withLock { $0 }.sorted()
        let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        print(String(format: "%d firings: lateness p50 %.2f ms, p99 %.2f ms, max %.2f ms", sorted.count,
            sorted[sorted.count / 2], p99, sorted.last ?? 0))
    }
}
