import Foundation
import FunctionsBus
import Logging
import Synchronization

/// The instances of one deployed function, as Cloud Run runs them: worker processes of the
/// functions binary started with `FUNCTION_TARGET` set to the function, each taking up to
/// `concurrency` events at once. When every instance is full another is started, up to
/// `maximum`; an instance idle for `idleTimeout` is stopped, down to `minimum` (at least one
/// runs, so the function answers at once and a binary that cannot start fails its deploy).
/// A crash or hang of one function's instances never touches another function's.
public final class FunctionInstances: Sendable {
    /// One worker process and the events it is handling.
    struct Instance {
        let supervisor: WorkerSupervisor
        var inFlight = 0
        var idleSince: ContinuousClock.Instant
    }

    private struct State {
        var instances: [Instance] = []
        var waiting: [CheckedContinuation<WorkerSupervisor, any Error>] = []
        var stopped = false
        /// The idle reaper, a child of the deployments' task scope.
        var task: TaskScope.ID?
        /// The idle reaper, waiting for an instance to become idle.
        var idleWatcher: CheckedContinuation<ContinuousClock.Instant?, Never>?
    }

    /// The function.
    public let function: String
    /// Events one instance takes at once.
    public let concurrency: Int
    /// The fewest instances kept.
    public let minimum: Int
    /// The most instances started.
    public let maximum: Int
    let idleTimeout: Duration
    let makeSupervisor: @Sendable () -> WorkerSupervisor
    let logger: Logger
    /// Where the reaper and instance starts run.
    let tasks: TaskScope
    /// Posts the function's events to its instances.
    let deliveries: DeliveryBatcher
    private let state = Mutex(State())

    /// The most instances a function gets when its options do not say (Cloud Run's default is
    /// 100). Here every instance shares one machine's cores: an instance that takes several
    /// events at once already runs them on all of them, so more such instances than cores only
    /// add processes competing for the same cores (under the trigger load on 2 cores, 2 instances
    /// drained 20 % more events a second than 10). Those functions get one instance per core,
    /// from 2 to 10; a function taking one event at a time gets 10, its only parallelism.
    public static func defaultMaximum(concurrency: Int, cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int {
        concurrency > 1 ? min(10, max(2, cores)) : 10
    }

    init(
        function: String,
        concurrency: Int,
        minimum: Int,
        maximum: Int,
        idleTimeout: Duration,
        logger: Logger,
        tasks: TaskScope,
        deliveries: DeliveryBatcher,
        makeSupervisor: @escaping @Sendable () -> WorkerSupervisor
    ) {
        self.tasks = tasks
        self.deliveries = deliveries
        self.function = function
        self.concurrency = max(1, concurrency)
        self.minimum = max(1, minimum)
        self.maximum = max(self.minimum, maximum)
        self.idleTimeout = idleTimeout
        self.logger = logger
        self.makeSupervisor = makeSupervisor
    }

    /// The instances' worker processes, oldest first.
    public var supervisors: [WorkerSupervisor] { state.withLock { $0.instances.map(\.supervisor) } }

    /// Each instance's process and load.
    public var load: [(supervisor: WorkerSupervisor, inFlight: Int)] {
        state.withLock { $0.instances.map { ($0.supervisor, $0.inFlight) } }
    }

    /// Starts the minimum number of instances and waits until they serve.
    ///
    /// - Throws: ``WorkerError`` when one does not start; none is left running then.
    func start() async throws {
        let supervisors = (0..<minimum).map { _ in makeSupervisor() }
        state.withLock { state in
            state.instances = supervisors.map { Instance(supervisor: $0, idleSince: .now) }
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for supervisor in supervisors { group.addTask { try await supervisor.start() } }
                try await group.waitForAll()
            }
        } catch {
            stop()
            throw error
        }
        state.withLock { state in
            // Not when the pool was stopped while it started.
            guard !state.stopped else { return }
            state.task = tasks.spawn { _ in await self.stopIdleInstances() }
        }
    }

    /// An instance with room for one more event (started now when all are full and the maximum
    /// allows, else the first to free a slot); pair with ``release(_:)``.
    func acquire() async throws -> WorkerSupervisor {
        enum Choice { case ready(WorkerSupervisor), start(WorkerSupervisor), wait, stopped }
        return try await withCheckedThrowingContinuation { continuation in
            let choice = state.withLock { state -> Choice in
                guard !state.stopped else { return .stopped }
                // The busiest instance with room, as Cloud Run fills an instance before it routes
                // to another: events that arrive together go out in one batch, and instances not
                // needed go idle and are stopped. As there, an instance whose handlers hang keeps
                // getting events until it is full; their deadlines end them.
                var best: Int?
                for index in state.instances.indices where state.instances[index].inFlight < concurrency {
                    if best.map({ state.instances[index].inFlight > state.instances[$0].inFlight }) ?? true { best = index }
                }
                if let index = best {
                    state.instances[index].inFlight += 1
                    return .ready(state.instances[index].supervisor)
                }
                if state.instances.count < maximum {
                    let supervisor = makeSupervisor()
                    state.instances.append(Instance(supervisor: supervisor, inFlight: 1, idleSince: .now))
                    return .start(supervisor)
                }
                state.waiting.append(continuation)
                return .wait
            }
            switch choice {
            case .ready(let supervisor): continuation.resume(returning: supervisor)
            case .start(let supervisor):
                logger.info("starting another instance", metadata: ["function": "\(function)"])
                // Its first event waits for it to serve (the delivery asks for its address); one
                // that cannot start leaves the pool.
                tasks.spawn { _ in
                    do {
                        try await supervisor.start()
                    } catch {
                        self.logger.error("an instance did not start", metadata: ["function": "\(self.function)", "error": "\(error)"])
                        self.state.withLock { $0.instances.removeAll { $0.supervisor === supervisor } }
                    }
                }
                continuation.resume(returning: supervisor)
            case .wait: break
            case .stopped: continuation.resume(throwing: WorkerError(message: "the function '\(function)' was undeployed"))
            }
        }
    }

    /// Frees the slot an event held on `supervisor`.
    func release(_ supervisor: WorkerSupervisor) {
        let waiter = state.withLock { state -> CheckedContinuation<WorkerSupervisor, any Error>? in
            guard let index = state.instances.firstIndex(where: { $0.supervisor === supervisor }) else { return nil }
            if !state.waiting.isEmpty { return state.waiting.removeFirst() }
            state.instances[index].inFlight -= 1
            if state.instances[index].inFlight == 0 {
                state.instances[index].idleSince = .now
                state.idleWatcher?.resume(returning: nil)
                state.idleWatcher = nil
            }
            return nil
        }
        // The slot passes straight to the next waiting event.
        waiter?.resume(returning: supervisor)
    }

    /// Stops every instance.
    func stop() {
        let (supervisors, waiting, task) = state.withLock { state in
            state.stopped = true
            defer { state.waiting = [] }
            return (state.instances.map(\.supervisor), state.waiting, state.task)
        }
        if let task { tasks.cancel(task) }
        for supervisor in supervisors { supervisor.stop() }
        for waiter in waiting { waiter.resume(throwing: WorkerError(message: "the function '\(function)' was undeployed")) }
    }

    /// Stops every instance and waits until their processes are gone.
    func stopAndWait() async {
        let supervisors = state.withLock { $0.instances.map(\.supervisor) }
        stop()
        for supervisor in supervisors { await supervisor.stopAndWait() }
    }

    /// Stops instances idle for longer than the idle timeout, keeping the minimum. It sleeps
    /// until the first idle instance above the minimum is due, or, when there is none, until an
    /// instance becomes idle: no polling.
    private func stopIdleInstances() async {
        while !Task.isCancelled {
            if let due = await nextIdleDeadline() {
                try? await Task.sleep(until: due, clock: .continuous)
            }
            let now = ContinuousClock.now
            let idle = state.withLock { state -> [WorkerSupervisor] in
                var stopped: [WorkerSupervisor] = []
                // The newest go first, so the longest-running instances stay.
                for index in state.instances.indices.reversed() where state.instances.count > minimum {
                    let instance = state.instances[index]
                    if instance.inFlight == 0, now - instance.idleSince >= idleTimeout {
                        stopped.append(instance.supervisor)
                        state.instances.remove(at: index)
                    }
                }
                return stopped
            }
            for supervisor in idle {
                logger.info("stopping an idle instance", metadata: ["function": "\(function)"])
                supervisor.stop()
            }
        }
    }

    /// When the first idle instance above the minimum may be stopped; with none, waits until an
    /// instance becomes idle (or the reaper is cancelled) and returns `nil` to look again.
    private func nextIdleDeadline() async -> ContinuousClock.Instant? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ContinuousClock.Instant?, Never>) in
                let due = state.withLock { state -> ContinuousClock.Instant? in
                    if state.instances.count > minimum,
                        let oldest = state.instances.filter({ $0.inFlight == 0 }).map(\.idleSince).min()
                    {
                        return oldest + idleTimeout
                    }
                    if Task.isCancelled { return .now }
                    state.idleWatcher = continuation
                    return nil
                }
                if let due { continuation.resume(returning: due) }
            }
        } onCancel: {
            state.withLock { state in
                state.idleWatcher?.resume(returning: nil)
                state.idleWatcher = nil
            }
        }
    }
}
