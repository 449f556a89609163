import CloudFunctions
import Foundation
import Synchronization
import Testing

/// Deadlines on the wall clock, which workers and the emulator use for handler timeouts: one
/// watcher serves them all, so these check that each deadline still fires on its own.
@Suite("SystemClock deadlines", .timeLimit(.minutes(1)))
struct SystemClockDeadlineTests {
    /// Waits until cancelled; records that it saw the cancellation.
    static func waitForCancellation(_ cancelled: Cancelled) async throws -> Int {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                cancelled.park(continuation)
            }
        } onCancel: {
            cancelled.fire()
        }
        try Task.checkCancellation()
        return 1
    }

    final class Cancelled: Sendable {
        private let state = Mutex<(fired: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
        var fired: Bool { state.withLock { $0.fired } }
        func park(_ continuation: CheckedContinuation<Void, Never>) {
            let resumeNow = state.withLock { state in
                if state.fired { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        func fire() {
            state.withLock { state in
                state.fired = true
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }

    @Test("a body that returns in time gives its value, whether or not it suspends")
    func inTime() async throws {
        let clock = SystemClock()
        let immediate = try await clock.run(until: clock.now.addingTimeInterval(60)) { 42 }
        #expect(immediate == 42)
        let suspending = try await clock.run(until: clock.now.addingTimeInterval(60)) { () async throws -> Int in
            await Task.yield()
            return 7
        }
        #expect(suspending == 7)
        await #expect(throws: URLError.self) {
            _ = try await clock.run(until: clock.now.addingTimeInterval(60)) { () async throws -> Int in
                throw URLError(.timedOut)
            }
        }
    }

    @Test("a body still running at its deadline is cancelled and the run gives nil, while a later deadline waits")
    func expires() async throws {
        let clock = SystemClock()
        let long = Cancelled()
        // A later deadline registered first: the watcher sleeps for it, and must wake earlier.
        let later = Task { try await clock.run(until: clock.now.addingTimeInterval(3600)) { try await Self.waitForCancellation(long) } }
        for count in [1, 5] {
            let short = (0..<count).map { _ in Cancelled() }
            let results = try await withThrowingTaskGroup(of: Int?.self) { group in
                for cancelled in short {
                    group.addTask { try await clock.run(until: clock.now.addingTimeInterval(0.05)) { try await Self.waitForCancellation(cancelled) } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results == Array(repeating: nil, count: count))
            #expect(short.allSatisfy { $0.fired })
        }
        #expect(!long.fired)
        // Cancelling the caller cancels the body.
        later.cancel()
        await #expect(throws: CancellationError.self) { _ = try await later.value }
        #expect(long.fired)
    }

    @Test("a body that never suspends but ends past its deadline has timed out")
    func synchronousOverrun() async throws {
        let clock = SystemClock()
        let deadline = clock.now.addingTimeInterval(0.02)
        let result = try await clock.run(until: deadline) { () async throws -> Int in
            while Date() <= deadline {}  // busy: nothing here suspends
            return 1
        }
        #expect(result == nil)
    }

    @Test("a deadline already past gives nil without running the body")
    func past() async throws {
        let clock = SystemClock()
        let ran = Cancelled()
        let result: Void? = try await clock.run(until: clock.now.addingTimeInterval(-1)) { ran.fire() }
        #expect(result == nil)
        #expect(!ran.fired)
    }
}
