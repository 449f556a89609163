import CloudEvents
import CloudFunctions
import Foundation
import FunctionsBus
import Logging

/// Fires the deployed schedules on the emulator's clock: each firing is committed to the
/// outbox with the schedule's last firing, then delivered like any event, to every function on
/// that schedule.
///
/// A schedule deployed for the first time starts from the moment of its deployment. One that
/// fired in an earlier run and missed moments while the emulator was down fires once at start,
/// for the latest moment missed, not once for each.
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

    /// The key a schedule's last firing is stored under.
    static func key(_ schedule: Schedule) -> String { "\(schedule.timeZoneIdentifier) \(schedule.expression)" }

    /// The schedules of these triggers, each once.
    static func schedules(of triggers: [EventTrigger]) -> [Schedule] {
        var seen = Set<String>()
        return triggers.compactMap(\.schedule).filter { seen.insert(key($0)).inserted }
    }

    /// Fires until cancelled.
    func run() async {
        guard !schedules.isEmpty else { return }
        var last: [String: Date] = [:]
        do {
            let stored = try store.lastFirings()
            let now = clock.now
            for schedule in schedules {
                let key = Self.key(schedule)
                guard let previous = stored[key] else {
                    try await store.recordFiring(key, at: deployedAt, event: nil)
                    last[key] = deployedAt
                    continue
                }
                last[key] = previous
                var missed: Date?
                var cursor = previous
                while let next = schedule.nextFiring(after: cursor), next <= now {
                    missed = next
                    cursor = next
                }
                if let missed {
                    logger.info("firing a schedule missed while the emulator was down",
                        metadata: ["schedule": "\(schedule)", "moment": "\(RFC3339Timestamp.string(from: missed))"])
                    await fire(schedule, at: missed)
                    last[key] = missed
                }
            }
        } catch {
            logger.error("could not read when the schedules last fired; they start from now",
                metadata: ["error": "\(error)"])
            for schedule in schedules where last[Self.key(schedule)] == nil { last[Self.key(schedule)] = deployedAt }
        }
        while !Task.isCancelled {
            let upcoming = schedules.compactMap { schedule in
                schedule.nextFiring(after: last[Self.key(schedule)] ?? deployedAt).map { (schedule, $0) }
            }
            guard let (schedule, moment) = upcoming.min(by: { $0.1 < $1.1 }) else { return }
            do {
                try await clock.sleep(until: moment)
            } catch {
                return
            }
            await fire(schedule, at: moment)
            last[Self.key(schedule)] = moment
        }
    }

    /// Commits and publishes one firing.
    private func fire(_ schedule: Schedule, at moment: Date) async {
        guard isCurrent() else { return }
        do {
            let entries = try await store.recordFiring(Self.key(schedule), at: moment,
                event: CloudEvent.scheduled(schedule, at: moment, project: project))
            dispatcher.publish(entries)
        } catch {
            logger.error("a schedule's firing could not be committed",
                metadata: ["schedule": "\(schedule)", "error": "\(error)"])
        }
    }
}
