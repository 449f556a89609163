import CloudEvents
import Foundation

/// One firing of a schedule, as a scheduled function receives it.
public struct ScheduledEvent: Sendable, Hashable {
    /// The Cloud Scheduler job that fired: `firebase-schedule-{function}-{region}`, the name
    /// a deploy gives it.
    public var jobName: String
    /// The moment the firing was scheduled for; a retry, or a firing made late (the emulator
    /// was not running), keeps it.
    public var scheduleTime: Date

    /// Creates an event.
    public init(jobName: String, scheduleTime: Date) {
        self.jobName = jobName
        self.scheduleTime = scheduleTime
    }

    /// The job name a deploy gives a function's schedule.
    public static func jobName(function: String, region: String) -> String {
        "firebase-schedule-\(function)-\(region)"
    }
}

extension CloudEvent {
    /// A firing of `schedule` for the moment `time`, as this runtime delivers it: one event per
    /// schedule and moment, which every function on that schedule receives (its id is the same
    /// however often the firing is committed, so it runs once).
    ///
    /// - Parameters:
    ///   - firedAt: when it fired, if later than `time` (a firing made late): the event's
    ///     `time`, from which its age counts; `time` stays in the `scheduletime` attribute.
    ///   - jobName: the job that fired, when a scheduler names it.
    public static func scheduled(
        _ schedule: Schedule, at time: Date, firedAt: Date? = nil, project: String, jobName: String? = nil
    ) -> CloudEvent {
        let moment = RFC3339Timestamp.string(from: time)
        var extensions: [String: CloudEventAttributeValue] = [
            Scheduler.scheduleAttribute: .string(schedule.expression),
            Scheduler.timeZoneAttribute: .string(schedule.timeZoneIdentifier),
            Scheduler.scheduleTimeAttribute: .string(moment),
        ]
        if let jobName { extensions[Scheduler.jobNameAttribute] = .string(jobName) }
        return CloudEvent(
            id: "\(schedule.key) \(moment)",
            source: "//cloudscheduler.googleapis.com/projects/\(project)",
            type: Scheduler.eventType,
            time: max(time, firedAt ?? time),
            extensions: extensions
        )
    }
}
