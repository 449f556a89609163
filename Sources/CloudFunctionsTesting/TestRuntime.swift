import CloudEvents
import CloudFunctions
import FunctionsBus
import Foundation
import Logging
import Synchronization

/// The in-process loop for tests: a registry's functions on an `EventBus` with a
/// ``ManualClock`` and a ``RecordingMessaging`` backend. Scheduled functions fire as
/// ``advance(by:)`` moves the clock past their moments.
///
/// ```swift
/// let runtime = try TestRuntime(functions)
/// try await runtime.withRunning {
///     await runtime.deliver(.remoteConfigUpdated(.example(), project: runtime.project))
///     #expect(runtime.messaging.sentMessages.count == 1)
/// }
/// ```
public struct TestRuntime: Sendable {
    /// The bus.
    public let bus: EventBus
    /// The clock the bus runs on.
    public let clock: ManualClock
    /// What handlers sent through `context.messaging`.
    public let messaging: RecordingMessaging
    /// Every finished delivery attempt.
    public let deliveries: RecordingObserver
    /// The project in event sources.
    public let project: String
    /// The schedules of the scheduled functions, and how far they have fired.
    private let schedules: Schedules

    /// The schedules of the registry, fired up to a moment.
    private final class Schedules: Sendable {
        let all: [Schedule]
        let firedThrough: Mutex<Date>

        init(_ all: [Schedule], from start: Date) {
            self.all = all
            firedThrough = Mutex(start)
        }

        /// The firings after the last one fired and up to `end`, in order; then fired through `end`.
        func take(through end: Date) -> [(schedule: Schedule, moment: Date)] {
            let start = firedThrough.withLock { start in
                defer { start = max(start, end) }
                return start
            }
            return all.flatMap { schedule in schedule.firings(after: start, through: end).map { (schedule, $0) } }
                .sorted { $0.moment < $1.moment }
        }
    }

    /// Builds the loop for the registry's functions, whose handlers read their params and
    /// declared secrets from `environment`, as a deploy would give them.
    ///
    /// - Throws: `RegistryError` when the registry has problems.
    public init(
        _ functions: FunctionRegistry,
        project: String = "demo-project",
        clock: ManualClock = ManualClock(),
        configuration: EventBus.Configuration = EventBus.Configuration(),
        environment: [String: String] = [:]
    ) throws(RegistryError) {
        let messaging = RecordingMessaging(project: project)
        let deliveries = RecordingObserver()
        self.bus = try EventBus(
            functions: functions,
            admin: AdminClients(messaging: messaging),
            clock: clock,
            configuration: configuration,
            observer: deliveries,
            environment: environment,
            logger: Logger(label: "cloud-functions.test")
        )
        self.clock = clock
        schedules = Schedules(Schedule.deployed(in: functions.functions.compactMap(\.function.eventTrigger)), from: clock.now)
        self.messaging = messaging
        self.deliveries = deliveries
        self.project = project
    }

    /// Runs the bus while `body` runs, then shuts it down: deliveries happen inside `body`.
    public func withRunning<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await bus.withRunning(body)
    }

    /// Publishes an event and waits until the bus is idle.
    ///
    /// - Returns: the functions the event was delivered to.
    @discardableResult
    public func deliver(_ event: CloudEvent) async -> [String] {
        let result = bus.publish(event)
        await bus.waitUntilIdle()
        return result.functions
    }

    /// Moves the clock forward and waits until what became due has run: each schedule's
    /// firings on the way, in order, the clock showing each one's moment while it runs, and
    /// the retries due.
    public func advance(by duration: Duration) async {
        let end = clock.now.addingTimeInterval(duration.seconds)
        for (schedule, moment) in schedules.take(through: end) {
            clock.advance(to: moment)
            await bus.waitUntilIdle()
            bus.publish(.scheduled(schedule, at: moment, project: project))
            await bus.waitUntilIdle()
        }
        clock.advance(to: end)
        await bus.waitUntilIdle()
    }
}
