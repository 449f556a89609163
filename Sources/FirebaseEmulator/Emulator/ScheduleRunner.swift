import CloudEvents
import CloudFunctions
import Foundation
import FunctionsBus
import Logging

/// Fires the deployed schedules on the emulator's clock: each firing is committed to the
/// outbox with the schedule's last firing, then delivered like any event, to every function on
/// that schedule.
///
/// A schedule deployed for the first time starts from the moment of its deployment. Moments
/// missed while the emulator was down (or the machine asleep) fire once, for the latest of
/// them, not once each; the event's `time` is when it fired, so its age counts from then.
struct ScheduleRunner: Sendable {
    let schedules: [Schedule]
    /// When they were deployed: a schedule new to the store starts from then.
    let deployedAt: Date
    let store: EmulatorStore
    let dispatcher: OutboxDispatcher
    let clock: any BusClock
    let project: String
    let logger: Logger
    /// Whether this runner's deployment is still the current one: a redeploy cancels the
    /// runner, but a firing due at that moment must not go out for the old deployment.
    let isCurrent: @Sendable () -> Bool

    /// Fires until cancelled.
    func run() async {
        guard !schedules.isEmpty else { return }
        var last: [String: Date] = [:]
        do {
            let stored = try store.lastFirings()
            for schedule in schedules {
                let key = schedule.key
                if let previous = stored[key] {
                    last[key] = previous
                } else {
                    try await store.recordFiring(key, at: deployedAt, event: nil, if: isCurrent)
                    last[key] = deployedAt
                }
            }
        } catch {
            logger.error("could not read when the schedules last fired; they start from their deployment",
                metadata: ["error": "\(error)"])
            for schedule in schedules where last[schedule.key] == nil { last[schedule.key] = deployedAt }
        }
        while !Task.isCancelled {
            let upcoming = schedules.compactMap { schedule in
                schedule.nextFiring(after: last[schedule.key] ?? deployedAt).map { (schedule, $0) }
            }
            guard let (schedule, due) = upcoming.min(by: { $0.1 < $1.1 }) else { return }
            do {
                try await clock.sleep(until: due)
            } catch {
                return
            }
            // Moments missed (the emulator was down, the machine asleep) fire once, for the
            // latest of them, not once each.
            let now = clock.now
            let moment = schedule.latestFiring(after: last[schedule.key] ?? deployedAt, through: now) ?? due
            if moment > due {
                logger.info("firing a schedule once for the moments it missed",
                    metadata: ["schedule": "\(schedule)", "moment": "\(RFC3339Timestamp.string(from: moment))"])
            }
            await fire(schedule, at: moment, now: now)
            last[schedule.key] = moment
        }
    }

    /// Commits and publishes one firing.
    private func fire(_ schedule: Schedule, at moment: Date, now: Date) async {
        do {
            let entries = try await store.recordFiring(schedule.key, at: moment,
                event: CloudEvent.scheduled(schedule, at: moment, firedAt: now, project: project), if: isCurrent)
            dispatcher.publish(entries)
        } catch {
            logger.error("a schedule's firing could not be committed",
                metadata: ["schedule": "\(schedule)", "error": "\(error)"])
        }
    }
}
