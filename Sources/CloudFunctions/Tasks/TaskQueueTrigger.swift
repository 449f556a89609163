/// The settings of a task-queue function's queue: how failed tasks are retried, how fast
/// tasks are dispatched, and who else may invoke the function where it is deployed.
public struct TaskQueueTrigger: Sendable, Hashable {
    /// How a task whose attempt failed is retried.
    public var retryConfig: TaskRetryConfig
    /// How many tasks are dispatched per second and at once.
    public var rateLimits: TaskRateLimits
    /// Who may call the function where it is deployed, besides the queue; `nil` for the queue alone.
    public var invoker: [String]?

    /// Creates the settings; the defaults are those of a queue `firebase deploy` creates.
    public init(retryConfig: TaskRetryConfig = TaskRetryConfig(), rateLimits: TaskRateLimits = TaskRateLimits(),
        invoker: [String]? = nil)
    {
        self.retryConfig = retryConfig
        self.rateLimits = rateLimits
        self.invoker = invoker
    }

    /// Why Cloud Tasks would refuse the queue, in words; empty when it is fine.
    public var problems: [String] { retryConfig.problems + rateLimits.problems }
}
