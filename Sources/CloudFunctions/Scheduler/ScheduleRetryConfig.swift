/// How Cloud Scheduler retries a firing whose function failed: up to `retryCount` more
/// attempts (none by default), waiting `minBackoff`, doubled `maxDoublings` times, then
/// growing by the last doubled wait each time, never more than `maxBackoff`.
public struct ScheduleRetryConfig: Sendable, Hashable {
    /// Retries after a failed attempt, 0 to 5.
    public var retryCount: Int
    /// How long a firing is retried for; `nil` for no limit but `retryCount`.
    public var maxRetryDuration: Duration?
    /// The first wait.
    public var minBackoff: Duration
    /// The longest wait.
    public var maxBackoff: Duration
    /// How many times the wait doubles before it grows linearly.
    public var maxDoublings: Int

    /// Creates a configuration; the defaults are Cloud Scheduler's.
    public init(
        retryCount: Int = 0, maxRetryDuration: Duration? = nil, minBackoff: Duration = .seconds(5),
        maxBackoff: Duration = .seconds(3_600), maxDoublings: Int = 5
    ) {
        self.retryCount = retryCount
        self.maxRetryDuration = maxRetryDuration
        self.minBackoff = minBackoff
        self.maxBackoff = maxBackoff
        self.maxDoublings = maxDoublings
    }

    /// Why Cloud Scheduler would refuse it, in words; empty when it is fine.
    var problems: [String] {
        var problems: [String] = []
        if !(0...5).contains(retryCount) { problems.append("retryCount must be from 0 to 5, not \(retryCount)") }
        if let maxRetryDuration, maxRetryDuration < .zero { problems.append("maxRetryDuration must not be negative") }
        if minBackoff < .zero || maxBackoff < minBackoff {
            problems.append("minBackoff must not be negative, nor above maxBackoff")
        }
        if !(0...16).contains(maxDoublings) { problems.append("maxDoublings must be from 0 to 16, not \(maxDoublings)") }
        return problems
    }
}
