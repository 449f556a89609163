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
}

/// The wall clock, sleeping with the continuous clock.
public struct SystemClock: BusClock {
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
}
