import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import Foundation
import FunctionsBus
import Synchronization
import Testing

/// Scheduled functions on `TestRuntime`'s manual clock: what fires, when, and with what.
@Suite("Scheduler: scheduled functions")
struct ScheduledFunctionTests {
    @Test("advancing the clock fires each schedule due, in order, at its moment, with the job and schedule time")
    func firesAsTimePasses() async throws {
        let runs = Mutex<[String]>([])
        var functions = FunctionRegistry()
        functions["nightlyDigest"] = Scheduler.cron("0 3 * * *").onRun { event, context in
            runs.withLock { $0.append("\(context.functionName) \(event.jobName) \(RFC3339Timestamp.string(from: event.scheduleTime))") }
        }
        functions["tidy"] = Scheduler.every("12 hours", timeZone: "Europe/Paris").onRun { event, _ in
            runs.withLock { $0.append("tidy \(RFC3339Timestamp.string(from: event.scheduleTime))") }
        }
        // 2026-11-28T20:00:00Z.
        let runtime = try TestRuntime(functions, clock: ManualClock(now: Date(timeIntervalSince1970: 1_795_896_000)))
        await runtime.withRunning {
            await runtime.advance(by: .seconds(3_600))
            #expect(runs.withLock { $0 }.isEmpty, "nothing is due before 23:00 UTC")
            await runtime.advance(by: .seconds(86_400))
            #expect(runs.withLock { $0 } == [
                "tidy 2026-11-28T23:00:00.000Z",
                "nightlyDigest firebase-schedule-nightlyDigest-us-central1 2026-11-29T03:00:00.000Z",
                "tidy 2026-11-29T11:00:00.000Z",
            ])
        }
    }

    @Test("a failed firing is retried as its retry config says: doubling waits, then given up")
    func retriedAsConfigured() async throws {
        let attempts = Mutex<[Int]>([])
        var functions = FunctionRegistry()
        functions["flaky"] = Scheduler.cron("*/30 * * * *")
            .retry(ScheduleRetryConfig(retryCount: 2, minBackoff: .seconds(10), maxBackoff: .seconds(60)))
            .onRun { _, context in
                attempts.withLock { $0.append(context.attempt) }
                throw CallableError(.unavailable, "down")
            }
        let runtime = try TestRuntime(functions, clock: ManualClock(now: Date(timeIntervalSince1970: 1_795_896_000)))
        await runtime.withRunning {
            await runtime.advance(by: .seconds(30 * 60))
            #expect(attempts.withLock { $0 } == [1])
            await runtime.advance(by: .seconds(10))
            #expect(attempts.withLock { $0 } == [1, 2])
            await runtime.advance(by: .seconds(19))
            #expect(attempts.withLock { $0 } == [1, 2], "the second wait is doubled")
            await runtime.advance(by: .seconds(1))
            #expect(attempts.withLock { $0 } == [1, 2, 3])
            await runtime.advance(by: .seconds(600))
            #expect(attempts.withLock { $0 } == [1, 2, 3], "retryCount 2: three attempts in all")
        }
        #expect(runtime.bus.deadLetters.count == 1)
    }

    @Test("a bad schedule or time zone is a registry problem, named with the function")
    func refused() throws {
        var functions = FunctionRegistry()
        functions["bad"] = Scheduler.cron("0 25 * * *").onRun { _, _ in }
        functions["lost"] = Scheduler.every("day 03:00", timeZone: "Nowhere/City").onRun { _, _ in }
        functions["eager"] = Scheduler.cron("* * * * *").retry(ScheduleRetryConfig(retryCount: 9)).onRun { _, _ in }
        let error = #expect(throws: RegistryError.self) { try TestRuntime(functions) }
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(text.contains("'25' is not a valid hour"))
        #expect(text.contains("'Nowhere/City' is not a time zone"))
        #expect(text.contains("retryCount must be from 0 to 5"))
    }
}
