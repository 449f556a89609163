/// Task-queue functions: each task enqueued to the function's queue runs it once (or again,
/// as the queue's ``TaskRetryConfig`` says, until it succeeds), no sooner than the task's
/// schedule time and no faster than the queue's ``TaskRateLimits``. Cloud Tasks dispatches them
/// where deployed; the emulator serves the same enqueue API (`CLOUD_TASKS_EMULATOR_HOST`).
///
/// ```swift
/// struct Recount: Codable, Sendable { var playerName: String }
///
/// functions["recountLeaderboard"] = Tasks.queue(
///     retry: TaskRetryConfig(maxAttempts: 5, minBackoff: .seconds(1)),
///     rateLimits: TaskRateLimits(maxDispatchesPerSecond: 50)
/// ).onDispatch { (request: TaskRequest<Recount>) in
///     request.context.logger.info("recount \(request.data.playerName), try \(request.task.retryCount + 1)")
/// }
///
/// // From any handler:
/// try await context.tasks.enqueue(Recount(playerName: "ada"), to: "recountLeaderboard", delay: .seconds(60))
/// ```
public enum Tasks {
    /// A queue with the given retries and rate limits; finish with ``TaskQueue/onDispatch(_:)``.
    ///
    /// - Parameter invoker: who may call the function where it is deployed, besides the queue
    ///   (service accounts); `nil` for the queue alone.
    public static func queue(
        retry: TaskRetryConfig = TaskRetryConfig(),
        rateLimits: TaskRateLimits = TaskRateLimits(),
        invoker: [String]? = nil
    ) -> TaskQueue {
        TaskQueue(trigger: TaskQueueTrigger(retryConfig: retry, rateLimits: rateLimits, invoker: invoker),
            options: FunctionOptions())
    }

    /// The header naming the queue a task came from.
    public static let queueNameHeader = "X-CloudTasks-QueueName"
    /// The header with the task's short name (its id).
    public static let taskNameHeader = "X-CloudTasks-TaskName"
    /// The header counting the attempts before this one.
    public static let retryCountHeader = "X-CloudTasks-TaskRetryCount"
    /// The header counting the attempts that got an answer other than a 5xx.
    public static let executionCountHeader = "X-CloudTasks-TaskExecutionCount"
    /// The header with the task's schedule time, in seconds since 1970.
    public static let etaHeader = "X-CloudTasks-TaskETA"
    /// The header with the HTTP status the previous attempt got.
    public static let previousResponseHeader = "X-CloudTasks-TaskPreviousResponse"
    /// The header saying why the task is being retried.
    public static let retryReasonHeader = "X-CloudTasks-TaskRetryReason"
}
