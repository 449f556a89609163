import CloudFunctions
import Foundation

/// The delivery of one event to one function, as a value: attempts, retries, timeouts and
/// the age limit, without any I/O. The bus drives it and acts on what it answers.
struct DeliveryStateMachine: Sendable, Hashable {
    enum State: Sendable, Hashable {
        /// Waiting in the function's queue for an attempt.
        case ready
        /// An attempt is running.
        case running(attempt: Int, deadline: Date)
        /// Waiting for the retry time after a failed attempt.
        case waitingForRetry(until: Date)
        /// Delivered, or given up on.
        case finished
    }

    /// What to do when an attempt would start.
    enum StartAction: Sendable, Hashable {
        /// Run attempt `attempt`; it times out at `deadline`.
        case run(attempt: Int, deadline: Date)
        /// The event is older than the maximum age: give up.
        case expire
    }

    /// What to do after an attempt ended.
    enum FinishAction: Sendable, Hashable {
        /// Delivered.
        case done
        /// Retry at this time.
        case retry(at: Date)
        /// Give up, for this reason.
        case deadLetter(DeadLetter.Reason)
    }

    /// What the machine needs of a function's options, with durations in seconds: worked out
    /// once per function, not at every attempt.
    struct Limits: Sendable {
        let timeout: Double
        let maxEventAge: Double
        let retry: Bool
        let maxAttempts: Int?
        let backoff: BackoffPolicy

        init(_ options: FunctionOptions) {
            timeout = options.timeout.seconds
            maxEventAge = options.maxEventAge.seconds
            retry = options.retry
            maxAttempts = options.maxAttempts
            backoff = options.backoff
        }
    }

    private(set) var state: State = .ready
    private(set) var attempts = 0
    /// When the latest attempt started; `nil` once the event expired (no attempt is made then).
    private(set) var startedAt: Date?
    /// The time the age limit counts from: the event's time, or when it was replayed.
    let origin: Date

    init(origin: Date) {
        self.origin = origin
    }

    /// An attempt may start now.
    mutating func start(now: Date, limits: Limits) -> StartAction {
        guard case .ready = state else { preconditionFailure("start in state \(state)") }
        if now.timeIntervalSince(origin) > limits.maxEventAge {
            state = .finished
            startedAt = nil
            return .expire
        }
        attempts += 1
        startedAt = now
        let deadline = now.addingTimeInterval(limits.timeout)
        state = .running(attempt: attempts, deadline: deadline)
        return .run(attempt: attempts, deadline: deadline)
    }

    /// The running attempt ended; `random` in `0..<1` drives the backoff jitter.
    mutating func finish(succeeded: Bool, now: Date, limits: Limits, random: Double) -> FinishAction {
        guard case .running = state else { preconditionFailure("finish in state \(state)") }
        if succeeded {
            state = .finished
            return .done
        }
        guard limits.retry else {
            state = .finished
            return .deadLetter(.failed)
        }
        if let maxAttempts = limits.maxAttempts, attempts >= maxAttempts {
            state = .finished
            return .deadLetter(.exhausted)
        }
        let delay = limits.backoff.delay(afterAttempt: attempts, random: random)
        let retryAt = now.addingTimeInterval(delay.seconds)
        if retryAt.timeIntervalSince(origin) > limits.maxEventAge {
            state = .finished
            return .deadLetter(.exhausted)
        }
        state = .waitingForRetry(until: retryAt)
        return .retry(at: retryAt)
    }

    /// The retry time has come: back to the queue.
    mutating func retryDue() {
        guard case .waitingForRetry = state else { preconditionFailure("retryDue in state \(state)") }
        state = .ready
    }
}
