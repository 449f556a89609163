import Foundation

/// The time source of an `EventBus`: what "now" is, and how to wait for a moment.
///
/// Production uses ``SystemClock``; tests inject a manual clock (`ManualClock` in
/// `CloudFunctionsTesting`) so retries, timeouts and event ages are exact and nothing sleeps.
public protocol BusClock: Sendable {
    /// The current time.
    var now: Date { get }
    /// Returns at `deadline`, or throws `CancellationError` when the task is cancelled first.
    func sleep(until deadline: Date) async throws
    /// Runs `body` until `deadline` on this clock: its value, or `nil` when the deadline comes
    /// first (then `body` is cancelled). The default races `body` against ``sleep(until:)``.
    func run<T: Sendable>(until deadline: Date, _ body: @escaping @Sendable () async throws -> T) async throws -> T?
}

extension BusClock {
    /// Races `body` against ``sleep(until:)`` in two child tasks.
    public func run<T: Sendable>(
        until deadline: Date,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await self.sleep(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}

/// The wall clock, sleeping with the continuous clock.
public struct SystemClock: BusClock {
    /// The deadlines of ``run(until:_:)``, watched by one task for this clock and its copies.
    private let watch = DeadlineWatch()

    /// Creates the clock.
    public init() {}

    public var now: Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let interval = deadline.timeIntervalSinceNow
        if interval > 0 {
            try await Task.sleep(for: .seconds(interval))
        } else {
            try Task.checkCancellation()
        }
    }

    /// One watcher task serves every deadline (``DeadlineWatch``), and `body` starts on the
    /// caller's thread: no timer and no thread switch per call.
    public func run<T: Sendable>(
        until deadline: Date,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        try await watch.run(until: deadline, body)
    }
}
