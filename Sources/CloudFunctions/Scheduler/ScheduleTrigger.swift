import CloudEvents
import Foundation

/// A schedule to run a function on; finish with ``onRun(_:)``.
///
/// Like Cloud Scheduler, it never runs a function's firings side by side (concurrency 1), and
/// retries a failed one only as its ``ScheduleRetryConfig`` says (not at all by default).
public struct ScheduleTrigger: Sendable {
    let expression: String
    let timeZone: String
    let retryConfig: ScheduleRetryConfig
    let functionOptions: FunctionOptions

    init(expression: String, timeZone: String, retryConfig: ScheduleRetryConfig = ScheduleRetryConfig(),
         options: FunctionOptions? = nil)
    {
        self.expression = expression
        self.timeZone = timeZone
        self.retryConfig = retryConfig
        var defaults = FunctionOptions()
        defaults.concurrency = 1
        self.functionOptions = (options ?? defaults).retrying(as: retryConfig)
    }

    /// The same schedule, retried as `config` says.
    public func retry(_ config: ScheduleRetryConfig) -> ScheduleTrigger {
        ScheduleTrigger(expression: expression, timeZone: timeZone, retryConfig: config, options: functionOptions)
    }

    /// The same schedule with other options changed (timeout, region, memory…); retries are
    /// set with ``retry(_:)``.
    public func options(_ changes: FunctionOption...) -> ScheduleTrigger {
        ScheduleTrigger(expression: expression, timeZone: timeZone, retryConfig: retryConfig,
            options: functionOptions.with(changes))
    }

    /// Runs `handler` at each firing of the schedule.
    public func onRun(_ handler: @escaping @Sendable (ScheduledEvent, EventContext) async throws -> Void) -> CloudFunction {
        var problems = retryConfig.problems
        do {
            _ = try Schedule(expression, timeZone: timeZone)
        } catch {
            problems.append(error.message)
        }
        let filters = [Scheduler.scheduleAttribute: expression, Scheduler.timeZoneAttribute: timeZone]
        let region = functionOptions.deploymentRegion
        return CloudFunction(
            trigger: EventTrigger(eventType: Scheduler.eventType, filters: filters),
            options: functionOptions,
            problems: problems,
            handler: { event, context in
                try await handler(ScheduledEvent(
                    jobName: event[attribute: Scheduler.jobNameAttribute]
                        ?? ScheduledEvent.jobName(function: context.functionName, region: region),
                    scheduleTime: event[attribute: Scheduler.scheduleTimeAttribute].flatMap { RFC3339Timestamp.date(from: $0) }
                        ?? event.time ?? context.timestamp), context)
            }
        )
    }
}

extension FunctionOptions {
    /// These options with the retries of a Cloud Scheduler retry configuration.
    func retrying(as config: ScheduleRetryConfig) -> FunctionOptions {
        var options = self
        options.retry = config.retryCount > 0
        options.maxAttempts = config.retryCount + 1
        options.backoff = BackoffPolicy(initial: config.minBackoff, maximum: config.maxBackoff, multiplier: 2,
            jitter: 0, maxDoublings: config.maxDoublings)
        if let duration = config.maxRetryDuration, duration > .zero { options.maxEventAge = duration }
        return options
    }
}
