import Foundation

/// Exponential backoff with jitter between retries of a failed event.
///
/// The delay before retry `n` (after the `n`th failed attempt) is
/// `min(maximum, initial × multiplierⁿ⁻¹)`, then shortened by up to `jitter` of itself at
/// random so that many failing events do not retry in lockstep. With `maxDoublings` `d`, the
/// delay grows by the multiplier `d` times only, then by `initial × multiplierᵈ` each time, as
/// Cloud Scheduler and Cloud Tasks grow theirs.
public struct BackoffPolicy: Sendable, Hashable {
    /// The delay after the first failure.
    public var initial: Duration
    /// The longest delay.
    public var maximum: Duration
    /// How much the delay grows after each failure.
    public var multiplier: Double
    /// The fraction of the delay that is random, from 0 (none) to 1.
    public var jitter: Double
    /// How many times the delay is multiplied before it grows linearly; `nil` for always.
    public var maxDoublings: Int?

    /// Creates a policy; the defaults are production's 10 s to 600 s, doubling, with half jitter.
    public init(
        initial: Duration = .seconds(10),
        maximum: Duration = .seconds(600),
        multiplier: Double = 2,
        jitter: Double = 0.5,
        maxDoublings: Int? = nil
    ) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
        self.maxDoublings = maxDoublings
    }

    /// The delay before the retry that follows a failed attempt.
    ///
    /// - Parameters:
    ///   - attempt: the failed attempt, from 1.
    ///   - random: a number in `0..<1`; the delay is `base × (1 − jitter × random)`.
    public func delay(afterAttempt attempt: Int, random: Double) -> Duration {
        let failures = max(0, attempt - 1)
        let grown: Double
        if let maxDoublings, failures > maxDoublings {
            grown = initial.seconds * Foundation.pow(multiplier, Double(maxDoublings)) * Double(failures - maxDoublings + 1)
        } else {
            grown = initial.seconds * Foundation.pow(multiplier, Double(failures))
        }
        let base = min(maximum.seconds, grown)
        return .seconds(base * (1 - jitter * min(max(random, 0), 1)))
    }

    var problems: [String] {
        var problems: [String] = []
        if initial <= .zero { problems.append("backoff.initial must be positive") }
        if maximum < initial { problems.append("backoff.maximum must not be below backoff.initial") }
        if multiplier < 1 { problems.append("backoff.multiplier must be at least 1") }
        if !(0...1).contains(jitter) { problems.append("backoff.jitter must be between 0 and 1") }
        if let maxDoublings, maxDoublings < 0 { problems.append("backoff.maxDoublings must not be negative") }
        return problems
    }
}
