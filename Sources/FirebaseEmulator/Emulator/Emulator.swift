import CloudEvents
import CloudFunctions
import FunctionsBus
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Every emulated Firebase service of one project, on one store, feeding deployed functions.
///
/// Deployed functions run while the emulator does: it is a `Service`, whose ``run()`` hosts the
/// deployed bus and the writer of the event log.
///
/// ```swift
/// let emulator = try Emulator(project: "demo-project", directory: nil)
/// try await emulator.withRunning {
///     try await emulator.deploy(functions)        // in process; handlers get emulator-backed clients
///     _ = try await emulator.remoteConfig.publish(template, ifMatch: "*")
///     await emulator.waitUntilIdle()              // pushConfig has sent its message
/// }
/// ```
public final class Emulator: Service, Sendable {
    /// The project id.
    public let project: String
    /// The store all services keep their state in.
    public let store: EmulatorStore
    /// Moves committed events to the deployed functions.
    package let dispatcher: OutboxDispatcher
    /// Remote Config.
    public let remoteConfig: RemoteConfigService
    /// The Realtime Database.
    public let database: DatabaseService
    /// Authentication.
    public let auth: AuthService
    /// Cloud Messaging.
    public let messaging: MessagingService
    /// Analytics.
    public let analytics: AnalyticsService
    /// Cloud Tasks: the queues of the deployed task-queue functions.
    public let taskQueues: TaskQueueService
    /// The time source of the services and the bus.
    public let clock: any BusClock
    let logger: Logger
    private let deployment = Mutex<EventBus?>(nil)
    /// The event triggers of the deployment.
    private let triggers = Mutex<[EventTrigger]>([])
    /// Told the event triggers of each deployment once it is deployed.
    private let deployHooks = Mutex<[@Sendable ([EventTrigger]) async -> Void]>([])
    /// The Firestore and Pub/Sub clients given by ``useGoogleClients(firestore:pubsub:)``.
    private let googleClients = Mutex<(firestore: any FirestoreClient, pubsub: any PubSubClient)?>(nil)
    /// The deployed buses, the event log's writer and the schedules' runner, children of ``run()``.
    private let tasks = TaskScope()
    /// The task that fires the deployed schedules, and the number of the latest deployment,
    /// which the runner's firings must be for.
    private let scheduleRunner = Mutex<(task: TaskScope.ID?, deployment: Int)>((nil, 0))

    /// How many of the newest events the event log keeps once they are done, unless told.
    public static let defaultEventLogSize = 100_000

    /// Opens the emulator on a data directory (`nil`: in memory) and publishes whatever events
    /// an earlier run committed but did not finish delivering, once functions are deployed.
    ///
    /// - Parameters:
    ///   - project: the project id.
    ///   - directory: where the state is kept; `nil` keeps it in memory.
    ///   - eventLogSize: how many of the newest events the event log keeps (with their
    ///     deliveries and attempts) once they are done; older finished ones are deleted, and
    ///     events not done are always kept.
    ///   - clock: the time source of the services and the bus.
    ///   - logger: the emulator's logger.
    public init(
        project: String,
        directory: URL?,
        eventLogSize: Int = Emulator.defaultEventLogSize,
        clock: any BusClock = SystemClock(),
        logger: Logger = Logger(label: "emulator")
    ) throws {
        let store = try EmulatorStore(directory: directory)
        let dispatcher = OutboxDispatcher(store: store, eventLogSize: eventLogSize, logger: logger)
        let emit: @Sendable ([OutboxEntry]) -> Void = { dispatcher.publish($0) }
        self.project = project
        self.store = store
        self.dispatcher = dispatcher
        self.clock = clock
        self.logger = logger
        remoteConfig = try RemoteConfigService(store: store, project: project, clock: clock, emit: emit)
        database = try DatabaseService(store: store, project: project, clock: clock, emit: emit)
        auth = try AuthService(store: store, project: project, clock: clock, emit: emit)
        messaging = try MessagingService(store: store, project: project, clock: clock, emit: emit)
        analytics = try AnalyticsService(store: store, project: project, clock: clock, emit: emit)
        let taskQueues = try TaskQueueService(store: store, project: project, clock: clock, logger: logger)
        self.taskQueues = taskQueues
        tasks.spawn { _ in await dispatcher.run() }
        tasks.spawn { _ in await taskQueues.run() }
    }

    /// Runs the deployed functions and records their deliveries until ``shutdown()``, or a
    /// graceful shutdown of its service group (which does the same); cancelled, it cancels the
    /// handlers running and stops at once, what they had not finished staying in the outbox.
    public func run() async {
        _ = await withGracefulShutdownHandler {
            await tasks.run()
        } onGracefulShutdown: {
            self.tasks.spawn { _ in await self.shutdown() }
        }
    }

    /// Runs the emulator while `body` runs, then shuts it down: the emulator inside a test or a tool.
    public func withRunning<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await withServiceRunning(run: run, shutdown: shutdown, body)
    }

    /// The default Realtime Database instance, `{project}-default-rtdb`.
    public var defaultDatabaseInstance: String { "\(project)-default-rtdb" }

    /// The Admin clients in-process functions get: backed by these services, and by Google's
    /// Firestore and Pub/Sub emulators when an emulator server runs them beside this one.
    public var admin: AdminClients {
        var clients = AdminClients(
            messaging: EmulatorMessagingClient(service: messaging),
            database: EmulatorDatabaseClient(service: database, namespace: defaultDatabaseInstance),
            auth: EmulatorAuthClient(service: auth),
            remoteConfig: EmulatorRemoteConfigClient(service: remoteConfig),
            tasks: EmulatorTaskQueueClient(service: taskQueues)
        )
        if let google = googleClients.withLock({ $0 }) {
            clients.firestore = google.firestore
            clients.pubsub = google.pubsub
        }
        return clients
    }

    /// The Firestore and Pub/Sub clients of in-process functions, from now on.
    package func useGoogleClients(firestore: any FirestoreClient, pubsub: any PubSubClient) {
        googleClients.withLock { $0 = (firestore, pubsub) }
    }

    /// Deploys functions in process: events are delivered to them from now on, starting with
    /// any left undelivered in the outbox.
    ///
    /// Replaces the previous deployment without losing events: new events go to the new
    /// functions at once; the previous ones finish what they are running; events they had not
    /// finished (such as pending retries) stay in the outbox and are published to the new
    /// deployment, which drops those it already has.
    ///
    /// Blocking functions in the registry run on client sign-ups and sign-ins from now on,
    /// called in process, and its task-queue functions get their queues; `blocking` replaces
    /// them (the emulator server calls its workers, and sets the queues).
    ///
    /// - Throws: ``RegistryError`` for a registry with problems (nothing is replaced then).
    @discardableResult
    public func deploy(
        _ functions: FunctionRegistry,
        blocking: BlockingFunctions? = nil,
        configuration: EventBus.Configuration = EventBus.Configuration()
    ) async throws -> EventBus {
        let deployedAt = clock.now
        // From now on, the previous deployment's schedules fire nothing.
        let deploymentNumber = scheduleRunner.withLock { state in
            state.deployment += 1
            return state.deployment
        }
        let bus = try EventBus(
            functions: functions,
            admin: admin,
            clock: clock,
            configuration: configuration,
            observer: dispatcher,
            logger: logger
        )
        let eventTriggers = functions.functions.compactMap(\.function.eventTrigger)
        triggers.withLock { $0 = eventTriggers }
        database.setTriggers(eventTriggers)
        auth.setBlockingFunctions(blocking ?? BlockingFunctions.inProcess(functions, project: project, admin: admin,
            clock: clock, logger: logger))
        if blocking == nil {
            // In process, the task queues dispatch to the registry's functions; the server sets
            // its own, which dispatch to the workers.
            let (queues, dispatch) = TaskQueueService.inProcess(functions, project: project, admin: admin, clock: clock,
                logger: logger)
            taskQueues.deploy(queues, dispatch: dispatch)
        }
        let previous = deployment.withLock { current in
            defer { current = bus }
            return current
        }
        dispatcher.attach(bus)
        tasks.spawn { _ in await bus.run() }
        // Every event committed before the new bus was attached is in the outbox up to here:
        // the recovery below goes that far. Later ones reach the new bus as they commit.
        let recoverThrough = try? store.latestSequence()
        await previous?.shutdown()
        // What the previous functions gave up on can still be listed and replayed: those of this
        // process's previous deployment, or at the first deployment, those of an earlier run.
        if let previous {
            bus.adopt(previous.deadLetters)
        } else {
            do {
                bus.adopt(try store.deadLetters(limit: configuration.deadLetterCapacity))
            } catch {
                logger.error("could not read the dead letters of an earlier run", metadata: ["error": "\(error)"])
            }
        }
        // What the old bus finished must be marked done before the outbox is read for what is
        // pending, or those events would be delivered again.
        await dispatcher.waitUntilRecorded()
        do {
            try await dispatcher.recoverPending(through: recoverThrough)
        } catch {
            // The new functions are deployed and take every new event: the deployment stands.
            // What is pending stays so in the outbox, for the next start or deploy.
            logger.error("could not publish the events an earlier deployment left undone; they stay pending",
                metadata: ["error": "\(error)"])
        }
        await runSchedules(of: eventTriggers, deployedAt: deployedAt, deployment: deploymentNumber)
        for hook in deployHooks.withLock({ $0 }) { await hook(eventTriggers) }
        return bus
    }

    /// Fires the schedules of a deployment from now on, in place of the previous deployment's
    /// (unless a later deployment has begun meanwhile).
    private func runSchedules(of triggers: [EventTrigger], deployedAt: Date, deployment: Int) async {
        let schedules = Schedule.deployed(in: triggers)
        do {
            try await store.keepSchedules(Set(schedules.map(\.key)))
        } catch {
            logger.error("could not forget the schedules no longer deployed", metadata: ["error": "\(error)"])
        }
        let runner = ScheduleRunner(schedules: schedules, deployedAt: deployedAt, store: store, dispatcher: dispatcher,
            clock: clock, project: project, logger: logger,
            isCurrent: { [weak self] in self?.scheduleRunner.withLock { $0.deployment == deployment } ?? false })
        let previous = scheduleRunner.withLock { state -> TaskScope.ID? in
            guard state.deployment == deployment else { return nil }
            defer { state.task = schedules.isEmpty ? nil : tasks.spawn { _ in await runner.run() } }
            return state.task
        }
        if let previous { tasks.cancel(previous) }
    }

    /// When `schedule` last fired here (or was deployed, if it has not fired since); `nil` when
    /// it is not deployed.
    public func lastFiring(of schedule: Schedule) throws -> Date? {
        try store.lastFirings()[schedule.key]
    }

    /// Calls `hook` with the event triggers of each deployment, once it is deployed: the server
    /// starts what Google's emulators need for them.
    package func onDeploy(_ hook: @escaping @Sendable ([EventTrigger]) async -> Void) {
        deployHooks.withLock { $0.append(hook) }
    }

    /// Whether a deployed function's trigger matches `event`.
    public func wants(_ event: CloudEvent) -> Bool {
        triggers.withLock { $0.contains { $0.matches(event) } }
    }

    /// Commits events from outside (Google's Firestore and Pub/Sub emulators) to the outbox
    /// and delivers them as the services' own events: at least once, with each function's
    /// retries, timeout and dead letters. An event the outbox has already (same source and
    /// id, such as a message delivered again) is not committed again.
    ///
    /// - Returns: how many events were committed.
    @discardableResult
    public func ingest(_ events: [CloudEvent]) async throws -> Int {
        let entries = try await store.ingest(events)
        dispatcher.publish(entries)
        return entries.count
    }

    /// The deployed bus, if any.
    public var bus: EventBus? { deployment.withLock { $0 } }

    /// Stops delivering: committed events stay in the outbox from now on, and the deployed bus
    /// finishes what it has queued and running (retries it was waiting for stay pending in the
    /// outbox, for the next start); ``run()`` ends once that is recorded.
    public func shutdown() async {
        await taskQueues.shutdown()
        dispatcher.attach(nil)
        await bus?.shutdown()
        await dispatcher.waitUntilRecorded()
        tasks.finish()
    }

    /// Waits until the deployed functions have nothing queued or running (and, with
    /// `includingRetries`, no retry scheduled), nor the task queues anything due or running (with
    /// `includingRetries`, nothing queued at all), and what they did is in the event log. Events
    /// may enqueue tasks and tasks cause events: it waits for both until neither has work.
    public func waitUntilIdle(includingRetries: Bool = false) async {
        repeat {
            await taskQueues.waitUntilIdle(includingScheduled: includingRetries)
            await bus?.waitUntilIdle(includingRetries: includingRetries)
            await dispatcher.waitUntilRecorded()
        } while !taskQueues.isIdle(includingScheduled: includingRetries)
            || !(bus?.isIdle(includingRetries: includingRetries) ?? true)
    }
}
