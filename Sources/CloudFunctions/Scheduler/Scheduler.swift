import Foundation

/// Scheduled functions: run on a schedule, as Cloud Scheduler runs them where deployed and as
/// the emulator (and `TestRuntime`, on its manual clock) runs them locally.
///
/// ```swift
/// functions["nightlyDigest"] = Scheduler.cron("0 3 * * *").onRun { event, context in
///     context.logger.info("digest for \(event.scheduleTime)")
/// }
/// functions["tidy"] = Scheduler.every("5 minutes", timeZone: "Europe/Paris").onRun { _, _ in }
/// ```
public enum Scheduler {
    /// The type of the CloudEvent each firing is delivered as.
    public static let eventType = "google.cloud.scheduler.job.v1.executed"
    /// The extension attribute holding the schedule's expression.
    public static let scheduleAttribute = "schedule"
    /// The extension attribute holding the schedule's time zone.
    public static let timeZoneAttribute = "timezone"
    /// The extension attribute holding the moment a firing was for (RFC 3339).
    public static let scheduleTimeAttribute = "scheduletime"
    /// The extension attribute holding the job name a scheduler gave.
    public static let jobNameAttribute = "jobname"
    /// The time zone schedules are read in unless told, as for 2nd-gen functions.
    public static let defaultTimeZone = "UTC"

    /// Runs on a unix-cron schedule (`"0 3 * * *"`), or the App Engine form (`"every day 03:00"`).
    public static func cron(_ expression: String, timeZone: String = defaultTimeZone) -> ScheduleTrigger {
        ScheduleTrigger(expression: expression, timeZone: timeZone)
    }

    /// Runs every interval, in App Engine's words: `"5 minutes"`, `"2 hours from 09:00 to 17:00"`,
    /// `"day 03:00"`, `"monday 09:00"` (with or without the leading `every`).
    public static func every(_ interval: String, timeZone: String = defaultTimeZone) -> ScheduleTrigger {
        let phrase = interval.trimmingCharacters(in: .whitespaces)
        return ScheduleTrigger(expression: phrase.lowercased().hasPrefix("every ") ? phrase : "every " + phrase,
            timeZone: timeZone)
    }
}
