import CloudFunctions
import CloudEvents
import Foundation
import HeapModule
import Logging
import ServiceLifecycle
import Synchronization

/// Delivers events to the functions whose triggers match them, in process.
///
/// Semantics follow Cloud Functions and Eventarc, plus what their emulator lacks:
/// - every function whose trigger matches an event gets it once (an event id seen again from
///   the same source is a duplicate and is dropped);
/// - up to `concurrency` invocations per function run at once, the rest wait in order;
/// - an invocation that throws or outlives its `timeout` fails; a timed-out handler is
///   cancelled and its slot freed;
/// - with `retry` on, failures are retried with exponential backoff and jitter, keeping the
///   event id, until `maxAttempts` or `maxEventAge` runs out;
/// - events older than `maxEventAge` are not delivered;
/// - what is given up on becomes a ``DeadLetter``, which can be replayed.
///
/// Time comes from a `BusClock`, so tests drive retries and timeouts exactly.
///
/// The bus is a `Service`: its drainers (which run handlers) and its timer (timeouts and
/// retries) are children of ``run()``, which a `ServiceGroup` (or ``withRunning(_:)``) runs.
/// Events published before it runs wait in their queues.
public final class EventBus: Service, Sendable {
    /// Settings of the bus itself.
    public struct Configuration: Sendable {
        /// How many dead letters are kept; the oldest are dropped beyond this.
        public var deadLetterCapacity = 10_000
        /// How many recent event keys are at least remembered to drop duplicates (at most twice as many are).
        public var deduplicationWindow = 100_000
        /// A number in `0..<1` for backoff jitter.
        public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

        /// The default settings.
        public init() {}
    }

    /// What ``publish(_:)`` did with an event.
    public struct PublishResult: Sendable, Hashable {
        /// The functions the event was queued for.
        public var functions: [String]
        /// Whether the event was a duplicate of one already accepted, and dropped.
        public var duplicate: Bool
    }

    /// One lane per function, in registration order.
    let lanes: [BusLane]
    /// Each lane's name alone in an array, as ``PublishResult/functions`` gives it.
    private let laneNames: [[String]]
    private let index: TriggerIndex
    let clock: any BusClock
    let configuration: Configuration
    let observer: (any DeliveryObserver)?
    /// Whether there is an observer: asked for every delivery, without copying the existential.
    let observed: Bool
    let logger: Logger
    /// What the functions share; see ``BusLane`` for the lock order.
    let state: Mutex<BusState>
    /// The keys of recent events, for dropping duplicates. Taken alone, or (with an observer)
    /// under the bus's lock; no other lock is taken under it.
    let recent: Mutex<RecentEventIDs>
    /// Deliveries queued or running (not those waiting for a retry). Raised under a lane's
    /// lock before its queue grows; lowered once a delivery's outcome is recorded.
    let active = Atomic<Int>(0)
    /// Drainers alive in all lanes; shutdown waits for none to be left.
    let drainerCount = Atomic<Int>(0)
    /// Set with `BusState.shuttingDown`, for drainers to read without the bus's lock.
    let closing = Atomic<Bool>(false)
    /// Whether someone waits for the bus to be idle: only then does the delivery that empties
    /// the bus take the bus's lock to tell them.
    let idleWaited = Atomic<Bool>(false)
    /// The armed timer's deadline (the bits of its time since the reference date), infinite
    /// when none is armed: an attempt whose deadline is later needs no timer of its own.
    let armedDeadline = Atomic<UInt64>(Double.infinity.bitPattern)
    /// Numbers ``waitUntilIdle()`` calls.
    private let waiterIDs = Atomic<UInt64>(0)
    /// The drainers and the timer, children of ``run()``.
    let tasks = TaskScope()

    /// Creates a bus for the functions of a registry.
    ///
    /// - Parameters:
    ///   - functions: the functions; their problems are reported here.
    ///   - admin: the Admin clients handlers get through their context.
    ///   - clock: the time source.
    ///   - configuration: settings of the bus.
    ///   - observer: told about every finished attempt.
    ///   - environment: where handlers read their params and declared secrets (by default the
    ///     process's environment).
    ///   - logger: the logger handlers' loggers derive from.
    /// - Throws: `RegistryError` when the registry has problems.
    public init(
        functions: FunctionRegistry,
        admin: AdminClients = AdminClients(),
        clock: any BusClock = SystemClock(),
        configuration: Configuration = Configuration(),
        observer: (any DeliveryObserver)? = nil,
        environment: [String: String] = ParamValues.processEnvironment,
        logger: Logger = Logger(label: "cloud-functions")
    ) throws(RegistryError) {
        try functions.validate()
        // Request functions (HTTPS, callable, blocking) take no events: they get no lane.
        let lanes = functions.functions.compactMap { name, function -> BusLane? in
            guard let trigger = function.eventTrigger, case .event(let handle) = function.handler else { return nil }
            return BusLane(
                name: name, trigger: trigger, handle: handle, options: function.options, admin: admin,
                paramValues: ParamValues(environment: environment, for: function, named: name), logger: logger
            )
        }
        self.lanes = lanes
        self.laneNames = lanes.map { [$0.name] }
        self.index = TriggerIndex(lanes.map(\.trigger))
        self.clock = clock
        self.configuration = configuration
        self.observer = observer
        self.observed = observer != nil
        self.logger = logger
        self.state = Mutex(BusState(configuration: configuration))
        self.recent = Mutex(RecentEventIDs(capacity: configuration.deduplicationWindow))
    }

    /// The names of the functions, in registration order.
    public var functionNames: [String] { lanes.map(\.name) }

    /// Queues an event for every function whose trigger matches it.
    ///
    /// Returns at once; delivery happens concurrently. Use ``waitUntilIdle()`` to wait for it.
    @discardableResult
    public func publish(_ event: CloudEvent) -> PublishResult {
        publish(contentsOf: CollectionOfOne(event))[0]
    }

    /// Queues several events at once, taking the bus's lock once for all of them.
    ///
    /// - Returns: what happened to each event, in order.
    @discardableResult
    public func publish(contentsOf events: some Collection<CloudEvent>) -> [PublishResult] {
        let events = Array(events)
        let matches = events.map { index.matches($0) }
        let keys = events.map(\.key)
        let now = clock.now
        // Which events are not duplicates, and their positions grouped by function.
        func accept() -> (accepted: [Bool], positionsByLane: [[Int]]) {
            let accepted = recent.withLock { $0.insert(contentsOf: keys) }
            var positionsByLane = [[Int]](repeating: [], count: lanes.count)
            for position in events.indices where accepted[position] {
                for lane in matches[position] { positionsByLane[lane].append(position) }
            }
            return (accepted, positionsByLane)
        }
        // Without an observer, duplicates are dropped and the rest grouped outside the bus's lock;
        // under it, only deliveries are queued. An observer is told when an event is finished,
        // and a duplicate of an event in flight must see that event counted as unfinished: the
        // duplicate check and that count are then one step, under the bus's lock. Apart, a
        // duplicate published at the same moment as its event could find it accepted but not yet
        // counted, and have it said finished before any handler ran.
        var (accepted, positionsByLane) = observed ? ([], []) : accept()
        var effects = BusEffects()
        // Under the bus's lock, so that a publish is all or nothing against shutdown.
        let open = withBusLock(&effects) { state, effects in
            if observed { (accepted, positionsByLane) = accept() }
            guard !state.shuttingDown else { return false }
            if observed {
                for position in events.indices {
                    let key = keys[position]
                    if accepted[position], !matches[position].isEmpty {
                        state.unfinished[key, default: 0] += matches[position].count
                    } else if accepted[position] || state.unfinished[key] == nil {
                        effects.finished.append(key)
                    }
                }
            }
            for lane in positionsByLane.indices where !positionsByLane[lane].isEmpty {
                let positions = positionsByLane[lane]
                // Each delivery is made in its place in the queue: built apart and copied in, it
                // cost a copy and a release more, with the function's lock held for the copy.
                enqueue(count: positions.count, lane: lane, effects: &effects) { queue in
                    for position in positions {
                        let event = events[position]
                        queue.append(Delivery(event: event, machine: DeliveryStateMachine(origin: event.time ?? now)))
                    }
                }
            }
            return true
        }
        finishEffects(effects)
        return events.indices.map { position in
            let delivered = open && accepted[position]
            return PublishResult(functions: delivered ? names(of: matches[position]) : [], duplicate: !accepted[position])
        }
    }

    /// The names of the lanes, without allocating for the usual single match.
    private func names(of matched: [Int]) -> [String] {
        matched.count == 1 ? laneNames[matched[0]] : matched.map { lanes[$0].name }
    }

    /// Whether nothing is queued or running and no retry is due (or, `includingRetries`,
    /// scheduled at all): what ``waitUntilIdle(includingRetries:)`` would return at once for.
    public func isIdle(includingRetries: Bool = false) -> Bool {
        state.withLock { isIdle($0, now: clock.now, includingRetries: includingRetries) }
    }

    /// Waits until nothing is queued or running and no retry is due.
    ///
    /// Retries scheduled for later count only `includingRetries`: then it waits until they
    /// have run too, in real time (with a manual clock, advance it past them instead and wait
    /// again). Returns early, the bus not idle, if the calling task is cancelled (so a test's
    /// time limit ends a test waiting for a bus that never becomes idle).
    public func waitUntilIdle(includingRetries: Bool = false) async {
        let id = waiterIDs.add(1, ordering: .relaxed).newValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resume = state.withLock { state in
                    if Task.isCancelled { return true }
                    // Announced before reading the count: a delivery that ends concurrently either
                    // is counted out already, or sees the announcement and comes to tell.
                    idleWaited.store(true, ordering: .sequentiallyConsistent)
                    if isIdle(state, now: clock.now, includingRetries: includingRetries) {
                        if state.idleWaiters.isEmpty { idleWaited.store(false, ordering: .sequentiallyConsistent) }
                        return true
                    }
                    state.idleWaiters[id] = BusState.IdleWaiter(continuation: continuation, includingRetries: includingRetries)
                    return false
                }
                if resume { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { if state.idleWaiters.isEmpty { idleWaited.store(false, ordering: .sequentiallyConsistent) } }
                return state.idleWaiters.removeValue(forKey: id)
            }
            waiter?.continuation.resume()
        }
    }

    /// The events given up on, oldest first.
    public var deadLetters: [DeadLetter] {
        state.withLock { $0.listedDeadLetters }
    }

    /// Keeps the dead letters of another bus (the one a redeploy replaces) for the functions
    /// this one has, before its own, so that they can still be listed and replayed. Those of
    /// other functions are dropped, and the oldest beyond ``Configuration/deadLetterCapacity``.
    public func adopt(_ letters: [DeadLetter]) {
        let names = Set(lanes.map(\.name))
        state.withLock { state in
            let own = Set(state.deadLetters.map(\.id))
            let adopted = letters.filter { names.contains($0.function) && !own.contains($0.id) }
            state.deadLetters = Array((adopted + state.deadLetters).suffix(state.deadLetterCapacity))
        }
    }

    /// Queues a dead letter's event again for its function, with fresh attempts; the age
    /// limit counts from now.
    ///
    /// - Returns: whether a dead letter with that id was found.
    @discardableResult
    public func replayDeadLetter(id: String) -> Bool {
        var effects = BusEffects()
        defer { finishEffects(effects) }
        return withBusLock(&effects) { state, effects in
            guard !state.shuttingDown, !state.unlistedDeadLetters.contains(id),
                let index = state.deadLetters.firstIndex(where: { $0.id == id }),
                let lane = lanes.firstIndex(where: { $0.name == state.deadLetters[index].function })
            else { return false }
            let letter = state.deadLetters.remove(at: index)
            let machine = DeliveryStateMachine(origin: clock.now)
            let delivery = Delivery(event: letter.event, machine: machine)
            if observed { state.unfinished[letter.event.key, default: 0] += 1 }
            enqueue(contentsOf: [delivery], lane: lane, effects: &effects)
            return true
        }
    }

    /// Runs the drainers and the timer until the bus has shut down.
    ///
    /// A graceful shutdown of its service group shuts the bus down as ``shutdown()`` does:
    /// what is queued and running finishes first. Cancelling it cancels the handlers running,
    /// and the bus takes no events afterwards.
    public func run() async {
        let ran = await withGracefulShutdownHandler {
            await tasks.run()
        } onGracefulShutdown: {
            self.beginShutdown()
        }
        // A second caller that stopped waiting leaves the bus to the one running it.
        guard ran else { return }
        // Ended by cancellation, the bus is closed too, and nobody is left waiting for it.
        beginShutdown()
        let waiters = state.withLock { state in
            defer { state.idleWaiters = [:]; state.drainersGone = [] }
            return state.idleWaiters.values.map(\.continuation) + state.drainersGone
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs the bus while `body` runs, then shuts it down: the bus inside a test or a tool.
    public func withRunning<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await withServiceRunning(run: run, shutdown: shutdown, body)
    }

    /// Stops accepting events and drops pending retries; ends the parked drainers, and ``run()``
    /// once no drainer is left.
    private func beginShutdown() {
        let idle = state.withLock { state in
            state.shuttingDown = true
            closing.store(true, ordering: .sequentiallyConsistent)
            // Dropped: they stay unfinished (the emulator's outbox delivers their events
            // again when it next starts). Kept, a due one would wake the timer again and
            // again, and keep the bus from ever being idle.
            state.retries = Heap()
            var waiters: [CheckedContinuation<Void, Never>] = []
            takeIdleWaitersIfIdle(&state, now: clock.now, into: &waiters)
            return waiters
        }
        for waiter in idle { waiter.resume() }
        // A drainer that parks from now on sees `closing` and ends instead.
        let released = lanes.compactMap { lane in lane.state.withLock { $0.releaseParked() } }
        for parked in released { parked.continuation.resume(returning: false) }
        if drainerCount.subtract(released.count, ordering: .sequentiallyConsistent).newValue == 0 { tasks.finish() }
    }

    /// Stops accepting events, finishes what is queued and running, and drops pending retries;
    /// returns once every drainer has ended, including the drainers of handlers that timed out
    /// (cancelled, they end when their handler returns), and ``run()`` ends. Cancelling the
    /// calling task cancels the handlers still running.
    public func shutdown() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                beginShutdown()
                let done = state.withLock { state -> Bool in
                    guard drainerCount.load(ordering: .sequentiallyConsistent) > 0 else { return true }
                    state.drainersGone.append(continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            for lane in lanes {
                for drainer in lane.state.withLock({ $0.runningDrainers }) { tasks.cancel(drainer) }
            }
        }
        tasks.finish()
    }
}
