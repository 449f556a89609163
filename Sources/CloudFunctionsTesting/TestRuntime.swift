import CloudEvents
import CloudFunctions
import FunctionsBus
import Foundation
import Logging

/// The in-process loop for tests: a registry's functions on an `EventBus` with a
/// ``ManualClock`` and a ``RecordingMessaging`` backend.
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

    /// Builds the loop for the registry's functions.
    ///
    /// - Throws: `RegistryError` when the registry has problems.
    public init(
        _ functions: FunctionRegistry,
        project: String = "demo-project",
        clock: ManualClock = ManualClock(),
        configuration: EventBus.Configuration = EventBus.Configuration()
    ) throws(RegistryError) {
        let messaging = RecordingMessaging(project: project)
        let deliveries = RecordingObserver()
        self.bus = try EventBus(
            functions: functions,
            admin: AdminClients(messaging: messaging),
            clock: clock,
            configuration: configuration,
            observer: deliveries,
            logger: Logger(label: "cloud-functions.test")
        )
        self.clock = clock
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

    /// Moves the clock forward and waits until what became due has run.
    public func advance(by duration: Duration) async {
        clock.advance(by: duration)
        await bus.waitUntilIdle()
    }
}
