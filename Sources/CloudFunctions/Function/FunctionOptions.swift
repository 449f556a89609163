/// How the runtime delivers events to one function.
///
/// The defaults follow Cloud Functions: no retries, a 60 s timeout, a 24 h retry window,
/// backoff between 10 s and 600 s, and 80 concurrent invocations.
public struct FunctionOptions: Sendable, Hashable {
    /// Whether a failed invocation is retried (off by default, as in production).
    public var retry: Bool = false
    /// How long one invocation may run before it counts as failed and is cancelled.
    public var timeout: Duration = .seconds(60)
    /// Events older than this are not delivered or retried any more.
    public var maxEventAge: Duration = .seconds(24 * 3600)
    /// How many invocations may run at once.
    public var concurrency: Int = 80
    /// The delay between retries.
    public var backoff: BackoffPolicy = BackoffPolicy()
    /// The most attempts one event gets, `nil` for as many as `maxEventAge` allows.
    public var maxAttempts: Int?
    /// The region the function is deployed to, for the manifest.
    public var region: String?
    /// ``region``, or the platform's default, `us-central1`.
    package var deploymentRegion: String { region ?? "us-central1" }
    /// The memory the function asks for, in MB, for the manifest.
    public var memoryMB: Int?
    /// The fewest instances kept running, `nil` for the platform's default (0).
    public var minInstances: Int?
    /// The most instances started, `nil` for the platform's default.
    public var maxInstances: Int?
    /// The services the function calls through its Admin clients, for the roles a deploy
    /// target grants; `nil` when not declared (then every service's).
    public var adminServices: Set<AdminService>?
    /// The names of the secrets the function reads (``Secret``): the only ones it is given.
    public var secrets: [String] = []

    /// The default options.
    public init() {}

    /// Problems that make the options of an event function unusable, in words; empty when they are fine.
    public var problems: [String] { problems(maximumTimeout: .seconds(540)) }

    /// Problems that make the options unusable for a function whose timeout may be at most
    /// `maximumTimeout` (see ``FunctionTrigger/maximumTimeout``).
    public func problems(maximumTimeout: Duration) -> [String] {
        var problems: [String] = []
        if timeout <= .zero || timeout > maximumTimeout {
            problems.append("timeout must be between 1 and \(Int(maximumTimeout.seconds)) seconds, not \(timeout)")
        }
        if maxEventAge <= .zero { problems.append("maxEventAge must be positive") }
        if !(1...1000).contains(concurrency) {
            problems.append("concurrency must be between 1 and 1000, not \(concurrency)")
        }
        if let maxAttempts, maxAttempts < 1 { problems.append("maxAttempts must be at least 1") }
        if let minInstances, !(0...1000).contains(minInstances) {
            problems.append("minInstances must be between 0 and 1000, not \(minInstances)")
        }
        if let maxInstances, !(1...1000).contains(maxInstances) {
            problems.append("maxInstances must be between 1 and 1000, not \(maxInstances)")
        }
        if let minInstances, let maxInstances, minInstances > maxInstances {
            problems.append("minInstances (\(minInstances)) cannot exceed maxInstances (\(maxInstances))")
        }
        if let memoryMB, !(128...32768).contains(memoryMB) {
            problems.append("memoryMB must be between 128 and 32768, not \(memoryMB)")
        }
        for secret in secrets {
            if let problem = ParamSpec.problem(withKey: secret) { problems.append("secret: " + problem) }
        }
        problems += backoff.problems
        return problems
    }
}

/// One change to ``FunctionOptions``, as written at a trigger: `.retry(true)`, `.timeout(.seconds(30))`.
public struct FunctionOption: Sendable {
    let apply: @Sendable (inout FunctionOptions) -> Void

    /// Retries failed invocations.
    public static func retry(_ enabled: Bool) -> FunctionOption { .init { $0.retry = enabled } }
    /// Limits one invocation's running time.
    public static func timeout(_ duration: Duration) -> FunctionOption { .init { $0.timeout = duration } }
    /// Stops delivering and retrying events older than this.
    public static func maxEventAge(_ duration: Duration) -> FunctionOption { .init { $0.maxEventAge = duration } }
    /// Limits how many invocations run at once.
    public static func concurrency(_ limit: Int) -> FunctionOption { .init { $0.concurrency = limit } }
    /// Sets the delay between retries.
    public static func backoff(_ policy: BackoffPolicy) -> FunctionOption { .init { $0.backoff = policy } }
    /// Limits the number of attempts per event.
    public static func maxAttempts(_ count: Int) -> FunctionOption { .init { $0.maxAttempts = count } }
    /// Names the region, for the manifest.
    public static func region(_ region: String) -> FunctionOption { .init { $0.region = region } }
    /// Asks for memory in MB, for the manifest.
    public static func memoryMB(_ megabytes: Int) -> FunctionOption { .init { $0.memoryMB = megabytes } }
    /// Keeps at least this many instances running where the function is deployed.
    public static func minInstances(_ count: Int) -> FunctionOption { .init { $0.minInstances = count } }
    /// Starts at most this many instances where the function is deployed.
    public static func maxInstances(_ count: Int) -> FunctionOption { .init { $0.maxInstances = count } }
    /// Declares the services the function calls through its Admin clients (none when empty):
    /// deployed, it runs as an account granted only their roles. Undeclared, every service's.
    public static func uses(_ services: AdminService...) -> FunctionOption {
        .init { $0.adminServices = Set(services) }
    }
    /// Declares the secrets the function reads: where it is deployed it is given these and no
    /// others (Secret Manager in production, `.secret.local` in the emulator).
    public static func secrets(_ secrets: Secret...) -> FunctionOption {
        .init { options in
            for secret in secrets where !options.secrets.contains(secret.name) { options.secrets.append(secret.name) }
        }
    }
}

extension FunctionOptions {
    /// These options with some changed.
    public func with(_ changes: [FunctionOption]) -> FunctionOptions {
        var options = self
        for change in changes { change.apply(&options) }
        return options
    }
}
