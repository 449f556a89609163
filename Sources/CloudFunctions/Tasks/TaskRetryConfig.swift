import Foundation

/// How a queue retries a task whose attempt failed (any answer but a 2xx, or none in time), as
/// Cloud Tasks does: it gives up only once **both** limits are spent, `maxAttempts` attempts
/// and `maxRetryDuration` since the first attempt (a limit left out is spent at once, unless
/// both are). The wait starts at `minBackoff`, doubles `maxDoublings` times, then grows by the
/// last doubled wait each time, never above `maxBackoff`.
public struct TaskRetryConfig: Sendable, Hashable {
    /// The most attempts, the first included; `nil` for no limit but the duration.
    public var maxAttempts: Int?
    /// How long after its first attempt a task may still be retried; `nil` for no limit but the attempts.
    public var maxRetryDuration: Duration?
    /// The first wait.
    public var minBackoff: Duration
    /// The longest wait.
    public var maxBackoff: Duration
    /// How many times the wait doubles before it grows linearly.
    public var maxDoublings: Int

    /// Creates a configuration; the defaults are those `firebase deploy` gives a queue:
    /// 3 attempts, waits from 0.1 s to an hour, 16 doublings.
    public init(
        maxAttempts: Int? = 3, maxRetryDuration: Duration? = nil, minBackoff: Duration = .milliseconds(100),
        maxBackoff: Duration = .seconds(3_600), maxDoublings: Int = 16
    ) {
        self.maxAttempts = maxAttempts
        self.maxRetryDuration = maxRetryDuration
        self.minBackoff = minBackoff
        self.maxBackoff = maxBackoff
        self.maxDoublings = maxDoublings
    }

    /// The waits between attempts, without jitter.
    public var backoff: BackoffPolicy {
        BackoffPolicy(initial: minBackoff, maximum: maxBackoff, multiplier: 2, jitter: 0, maxDoublings: maxDoublings)
    }

    /// When the attempt after `attempts` failed ones should run, or `nil` when the task is given
    /// up on: both limits spent at `now`, for a task first attempted at `firstAttempt`.
    public func retryTime(afterAttempts attempts: Int, firstAttempt: Date, now: Date) -> Date? {
        let attemptsSpent = maxAttempts.map { attempts >= $0 }
        let durationSpent = maxRetryDuration.map { now.timeIntervalSince(firstAttempt) >= $0.seconds }
        switch (attemptsSpent, durationSpent) {
        case (nil, nil): break
        case (let spent?, nil), (nil, let spent?): if spent { return nil }
        case (let attemptsSpent?, let durationSpent?): if attemptsSpent && durationSpent { return nil }
        }
        return now.addingTimeInterval(backoff.delay(afterAttempt: attempts, random: 0).seconds)
    }

    /// Why Cloud Tasks would refuse it, in words; empty when it is fine.
    public var problems: [String] {
        var problems: [String] = []
        if let maxAttempts, !(1...100).contains(maxAttempts) {
            problems.append("maxAttempts must be from 1 to 100 (nil for unlimited), not \(maxAttempts)")
        }
        if let maxRetryDuration, maxRetryDuration < .zero { problems.append("maxRetryDuration must not be negative") }
        if minBackoff < .zero || maxBackoff < minBackoff {
            problems.append("minBackoff must not be negative, nor above maxBackoff")
        }
        if maxDoublings < 0 { problems.append("maxDoublings must not be negative, not \(maxDoublings)") }
        return problems
    }
}
