import CloudFunctions
import Foundation
import FunctionsBus
import HeapModule
import Logging
import Synchronization

/// The emulator's Cloud Tasks: the queues of the deployed task-queue functions, with Cloud
/// Tasks' semantics.
///
/// - A task is stored before its enqueue is answered, and runs no sooner than its schedule time.
/// - An explicit id is refused (`ALREADY_EXISTS`) while its task exists and for an hour after
///   it succeeded, failed for good or was deleted.
/// - Each queue starts at most `maxDispatchesPerSecond` attempts a second, evenly spaced, and
///   runs at most `maxConcurrentDispatches` at once.
/// - An attempt succeeds on a 2xx answer; anything else (or no answer within the dispatch
///   deadline) is retried as the queue's ``TaskRetryConfig`` says, until both its limits are spent.
/// - Tasks survive a restart; one that was running is dispatched again (at least once).
/// - Tasks for a queue that is not deployed (any more) wait until it is.
///
/// Like the bus, it has no loop: each change (an enqueue, an attempt's end, a deploy, the timer)
/// starts what is due and arms one timer for what is next.
public final class TaskQueueService: Sendable {
    /// A deployed queue: its function's trigger, region and timeout.
    public struct Queue: Sendable {
        /// Retries and rate limits.
        public var trigger: TaskQueueTrigger
        /// The function's region, which is the queue's location.
        public var location: String
        /// How long an attempt waits for an answer unless the task says.
        public var timeout: Duration

        /// Creates a queue.
        public init(trigger: TaskQueueTrigger, location: String, timeout: Duration) {
            self.trigger = trigger
            self.location = location
            self.timeout = timeout
        }
    }

    /// One attempt to send to a queue's function.
    public struct Attempt: Sendable {
        /// The queue: the function's name.
        public var queue: String
        /// The task's body.
        public var body: Data
        /// The task's headers and the `X-CloudTasks-*` ones.
        public var headers: [(String, String)]
        /// How long to wait for the answer.
        public var timeout: Duration
    }

    /// What an attempt got: the HTTP status, or why there was none.
    public struct Answer: Sendable {
        /// The status; `nil` when no answer came.
        public var status: Int?
        /// What went wrong, in words, when it did.
        public var error: String?

        /// Creates an answer.
        public init(status: Int?, error: String? = nil) {
            self.status = status
            self.error = error
        }
    }

    /// Sends attempts to the functions: the deployment's workers.
    public typealias Dispatch = @Sendable (Attempt) async -> Answer

    /// How long a finished task's id stays taken.
    public static let idReuseDelay: TimeInterval = 3_600

    struct Key: Hashable, Sendable {
        var queue: String
        var id: String
    }

    /// A task due at a time, in the order they were queued.
    struct Due: Comparable, Sendable {
        var time: Date
        var sequence: Int
        var id: String

        static func < (lhs: Due, rhs: Due) -> Bool { (lhs.time, lhs.sequence) < (rhs.time, rhs.sequence) }
    }

    /// One queue's scheduling.
    struct Lane: Sendable {
        /// Its settings while deployed.
        var queue: Queue?
        /// The queued tasks, by due time; entries of tasks since run, rescheduled or deleted are skipped.
        var due = Heap<Due>()
        /// Attempts running.
        var running = 0
        /// The earliest the next attempt may start.
        var nextSlot = Date.distantPast
    }

    /// How idle a waiter wants the queues.
    enum Idleness: Sendable {
        /// No attempt running.
        case notRunning
        /// No attempt running, and no task of a deployed queue due.
        case nothingDue
        /// No attempt running, and no task of a deployed queue waiting, whenever it is due.
        case nothingQueued
    }

    struct State: Sendable {
        var tasks: [Key: QueuedTask] = [:]
        var lanes: [String: Lane] = [:]
        var dispatch: Dispatch?
        var timer: (id: TaskScope.ID, time: Date)?
        var sequence = 0
        var enqueuedSincePrune = 0
        var closing = false
        var idleWaiters: [(idleness: Idleness, waiter: CheckedContinuation<Void, Never>)] = []

        var running: Int { lanes.values.reduce(0) { $0 + $1.running } }

        /// Whether the queues are as idle as asked at `now`.
        func isIdle(_ idleness: Idleness, now: Date) -> Bool {
            guard running == 0 else { return false }
            switch idleness {
            case .notRunning: return true
            case .nothingDue, .nothingQueued:
                return !tasks.values.contains { task in
                    task.state == .queued && lanes[task.queue]?.queue != nil
                        && (idleness == .nothingQueued || task.scheduleTime <= now)
                }
            }
        }

        /// Takes the waiters whose idleness has come.
        mutating func takeIdleWaiters(now: Date) -> [CheckedContinuation<Void, Never>] {
            guard !idleWaiters.isEmpty, running == 0 else { return [] }
            var ready: [CheckedContinuation<Void, Never>] = []
            var waiting: [(idleness: Idleness, waiter: CheckedContinuation<Void, Never>)] = []
            for entry in idleWaiters {
                if isIdle(entry.idleness, now: now) { ready.append(entry.waiter) } else { waiting.append(entry) }
            }
            idleWaiters = waiting
            return ready
        }

        /// Puts a queued task in its lane's schedule.
        mutating func schedule(_ task: QueuedTask) {
            sequence += 1
            lanes[task.queue, default: Lane()].due.insert(Due(time: task.scheduleTime, sequence: sequence, id: task.id))
        }
    }

    let store: EmulatorStore
    let project: String
    let clock: any BusClock
    let logger: Logger
    private let state: Mutex<State>
    private let scope = TaskScope()

    /// Creates the queues with the tasks `store` holds.
    ///
    /// - Throws: when the store cannot be read.
    init(store: EmulatorStore, project: String, clock: any BusClock, logger: Logger) throws {
        self.store = store
        self.project = project
        self.clock = clock
        self.logger = logger
        var state = State()
        for task in try store.loadTasks() {
            state.tasks[Key(queue: task.queue, id: task.id)] = task
            if task.state == .queued { state.schedule(task) }
        }
        self.state = Mutex(state)
    }

    /// Runs the attempts until ``shutdown()``.
    func run() async {
        _ = await scope.run()
    }

    /// Stops starting attempts, waits for those running to end, and ends ``run()``.
    func shutdown() async {
        let timer = state.withLock { state in
            state.closing = true
            defer { state.timer = nil }
            return state.timer?.id
        }
        if let timer { scope.cancel(timer) }
        await wait(until: .notRunning)
        // Nothing more runs: whoever waits for the queues to empty waits no longer.
        for waiter in state.withLock({ state in defer { state.idleWaiters = [] }; return state.idleWaiters.map(\.waiter) }) {
            waiter.resume()
        }
        scope.finish()
    }

    /// Returns once no attempt runs and no task of a deployed queue is due; with
    /// `includingScheduled`, once no such task waits at all (those scheduled later, and the
    /// retries, have run). A due task waiting for its queue's next dispatch slot is due: on a
    /// manual clock, advance it past the slots (at 500 a second, 2 ms apart).
    public func waitUntilIdle(includingScheduled: Bool = false) async {
        await wait(until: includingScheduled ? .nothingQueued : .nothingDue)
    }

    /// Whether ``waitUntilIdle(includingScheduled:)`` would return at once.
    public func isIdle(includingScheduled: Bool = false) -> Bool {
        let now = clock.now
        return state.withLock { $0.isIdle(includingScheduled ? .nothingQueued : .nothingDue, now: now) }
    }

    private func wait(until idleness: Idleness) async {
        let now = clock.now
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state in
                if state.isIdle(idleness, now: now) { return true }
                state.idleWaiters.append((idleness, continuation))
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Serves `queues` (by function name) from now on, sending their attempts through
    /// `dispatch`; tasks of other queues wait until theirs is deployed again.
    public func deploy(_ queues: [String: Queue], dispatch: @escaping Dispatch) {
        state.withLock { state in
            for name in Set(state.lanes.keys).union(queues.keys) { state.lanes[name, default: Lane()].queue = queues[name] }
            state.dispatch = dispatch
        }
        pump()
    }

    /// Adds a task to `queue` (in `location`), stored before this returns.
    ///
    /// - Parameters:
    ///   - id: the task's id; `nil` for one the queue chooses.
    ///   - scheduleTime: when it should run; `nil` (or a past time) for now.
    /// - Throws: ``ServiceError`` `NOT_FOUND` when the queue is not deployed there,
    ///   `ALREADY_EXISTS` for an id in use or used within the hour, `INVALID_ARGUMENT` for a
    ///   malformed id or deadline.
    public func enqueue(
        queue: String, location: String, id: String?, body: Data, headers: [String: String], scheduleTime: Date?,
        dispatchDeadline: Duration?
    ) async throws -> QueuedTask {
        let check = TaskToEnqueue(data: .null, id: id, dispatchDeadline: dispatchDeadline)
        if let problem = check.problem { throw ServiceError(.invalidArgument, problem) }
        let headers = try Self.taskHeaders(headers)
        let now = clock.now
        let task = try state.withLock { state throws(ServiceError) -> QueuedTask in
            guard state.lanes[queue]?.queue?.location == location else { throw Self.queueNotFound }
            let taskID = id ?? Self.newID(in: state.tasks, queue: queue)
            let key = Key(queue: queue, id: taskID)
            if let existing = state.tasks[key],
                !(existing.finishTime.map { now.timeIntervalSince($0) >= Self.idReuseDelay } ?? false)
            {
                throw ServiceError(.alreadyExists, "Requested entity already exists")
            }
            let task = QueuedTask(queue: queue, location: location, id: taskID, body: body, headers: headers,
                scheduleTime: max(scheduleTime ?? now, now), createTime: now, dispatchDeadline: dispatchDeadline)
            // Taken at once, scheduled once stored.
            state.tasks[key] = task
            state.enqueuedSincePrune += 1
            return task
        }
        let key = Key(queue: queue, id: task.id)
        do {
            try await persist(key)
        } catch {
            state.withLock { $0.tasks[key] = nil }
            pump()
            logger.error("could not store a task", metadata: ["queue": "\(queue)", "error": "\(error)"])
            throw ServiceError(.internal, "the task could not be stored")
        }
        state.withLock { state in
            // Deleted meanwhile, it stays so.
            if state.tasks[key]?.state == .queued { state.schedule(task) }
        }
        pump()
        await pruneIfDue(now: now)
        return task
    }

    /// Deletes a task that has not succeeded yet; an attempt running goes on, but it is not retried.
    ///
    /// - Throws: ``ServiceError`` `NOT_FOUND` when there is no such task, or it is finished.
    public func delete(queue: String, location: String, id: String) async throws {
        let key = Key(queue: queue, id: id)
        try state.withLock { state throws(ServiceError) in
            guard var task = state.tasks[key], task.location == location, !task.state.isFinished else {
                throw ServiceError(.notFound, "Requested entity was not found.")
            }
            task.state = .deleted
            task.finishTime = clock.now
            state.tasks[key] = task
        }
        try await persist(key)
        // The last task waited for may be gone.
        pump()
    }

    /// One task, finished or not (within the hour).
    public func task(queue: String, location: String, id: String) -> QueuedTask? {
        state.withLock { $0.tasks[Key(queue: queue, id: id)] }.flatMap { $0.location == location ? $0 : nil }
    }

    /// The tasks of `queue` (every queue's when `nil`), those finished within the hour included,
    /// by schedule time.
    public func tasks(in queue: String? = nil) -> [QueuedTask] {
        state.withLock { state in state.tasks.values.filter { queue == nil || $0.queue == queue } }
            .sorted { ($0.scheduleTime, $0.queue, $0.id) < ($1.scheduleTime, $1.queue, $1.id) }
    }

    /// The deployed queues, by function name.
    public var queues: [String: Queue] {
        state.withLock { state in state.lanes.compactMapValues(\.queue) }
    }

    /// Cloud Tasks' answer for a queue it does not have.
    public static let queueNotFound = ServiceError(.notFound, "Queue does not exist.")

    /// The headers a task keeps: valid HTTP fields, without those of a connection and those the
    /// queue sets itself (which Cloud Tasks ignores too).
    ///
    /// - Throws: ``ServiceError`` `INVALID_ARGUMENT` for a name or value HTTP does not allow.
    static func taskHeaders(_ headers: [String: String]) throws(ServiceError) -> [String: String] {
        var kept: [String: String] = [:]
        for (name, value) in headers {
            guard HTTPField.Name(name) != nil, HTTPField.isValidValue(value) else {
                throw ServiceError(.invalidArgument, "httpRequest.headers: '\(name)' is not a valid HTTP header")
            }
            let lowered = name.lowercased()
            if ignoredHeaders.contains(lowered) || ignoredHeaderPrefixes.contains(where: lowered.hasPrefix) { continue }
            kept[name] = value
        }
        return kept
    }

    static let ignoredHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade",
        "proxy-connection", "user-agent",
    ]
    static let ignoredHeaderPrefixes = ["x-cloudtasks-", "x-google-", "x-appengine-"]

    /// A fresh id as Cloud Tasks makes them: a long decimal number.
    private static func newID(in tasks: [Key: QueuedTask], queue: String) -> String {
        while true {
            let id = String(UInt64.random(in: 1_000_000_000_000_000_000...UInt64.max))
            if tasks[Key(queue: queue, id: id)] == nil { return id }
        }
    }

    /// Writes the task's current state (or its absence) to the store.
    private func persist(_ key: Key) async throws {
        try await store.saveTask(queue: key.queue, id: key.id) { [self] in state.withLock { $0.tasks[key] } }
    }

    /// Forgets, now and then, the tasks finished over an hour ago.
    private func pruneIfDue(now: Date) async {
        let cutoff = now.addingTimeInterval(-Self.idReuseDelay)
        let due = state.withLock { state in
            guard state.enqueuedSincePrune >= 1_000 else { return false }
            state.enqueuedSincePrune = 0
            state.tasks = state.tasks.filter { !($0.value.finishTime.map { $0 < cutoff } ?? false) }
            return true
        }
        guard due else { return }
        do {
            try await store.forgetTasks(finishedBefore: cutoff)
        } catch {
            logger.warning("could not forget old tasks", metadata: ["error": "\(error)"])
        }
    }

    /// Starts every attempt that is due and allowed, and arms the timer for the next one.
    private func pump() {
        let now = clock.now
        var starts: [(started: Started, attempt: Attempt)] = []
        var dispatch: Dispatch?
        var replacedTimer: TaskScope.ID?
        var idle: [CheckedContinuation<Void, Never>] = []
        state.withLock { state in
            defer { idle = state.takeIdleWaiters(now: now) }
            guard !state.closing, let send = state.dispatch else { return }
            dispatch = send
            var wake: Date?
            for name in state.lanes.keys {
                guard let queue = state.lanes[name]?.queue else { continue }
                let limits = queue.trigger.rateLimits
                let interval = 1 / limits.maxDispatchesPerSecond
                // The lane is changed in place: a copy of its heap per attempt would make draining
                // a long queue quadratic.
                while let top = state.lanes[name]?.due.min {
                    let key = Key(queue: name, id: top.id)
                    guard var task = state.tasks[key], task.state == .queued, task.scheduleTime == top.time else {
                        _ = state.lanes[name]?.due.removeMin()
                        continue
                    }
                    guard let running = state.lanes[name]?.running, running < limits.maxConcurrentDispatches,
                        let slot = state.lanes[name]?.nextSlot
                    else { break }
                    let ready = max(top.time, slot)
                    if ready > now {
                        wake = min(wake ?? ready, ready)
                        break
                    }
                    _ = state.lanes[name]?.due.removeMin()
                    state.lanes[name]?.running += 1
                    // Evenly spaced: a backlog keeps to its slots (one late by less than a slot
                    // does not delay the next); after a pause, the next slot counts from now.
                    let base = slot >= now.addingTimeInterval(-interval) ? slot : now
                    state.lanes[name]?.nextSlot = base.addingTimeInterval(interval)
                    let attempt = Attempt(queue: name, body: task.body, headers: task.attemptHeaders(),
                        timeout: task.dispatchDeadline ?? queue.timeout)
                    task.state = .dispatching
                    task.dispatchCount += 1
                    task.firstAttemptTime = task.firstAttemptTime ?? now
                    task.lastAttemptTime = now
                    state.tasks[key] = task
                    starts.append((Started(key: key, createTime: task.createTime, attempt: task.dispatchCount), attempt))
                }
            }
            guard let wake, state.timer.map({ $0.time > wake }) ?? true else { return }
            replacedTimer = state.timer?.id
            let clock = clock
            let id = scope.spawnIfRunning { [weak self] id in
                do {
                    try await clock.sleep(until: wake)
                } catch {
                    return
                }
                self?.timerFired(id)
            }
            state.timer = id.map { ($0, wake) }
        }
        if let replacedTimer { scope.cancel(replacedTimer) }
        for waiter in idle { waiter.resume() }
        guard let dispatch else { return }
        for (started, attempt) in starts {
            let spawned = scope.spawnIfRunning { [self] _ in
                let answer = await dispatch(attempt)
                await finish(started, answer: answer)
            }
            // The queues have stopped: the attempt never runs (the stored task is still queued).
            if spawned == nil { state.withLock { $0.lanes[started.key.queue]?.running -= 1 } }
        }
    }

    /// Which attempt of which task started: a task deleted, forgotten and enqueued again under
    /// its id meanwhile is another task.
    struct Started: Sendable {
        var key: Key
        var createTime: Date
        var attempt: Int
    }

    private func timerFired(_ id: TaskScope.ID) {
        state.withLock { state in
            if state.timer?.id == id { state.timer = nil }
        }
        pump()
    }

    /// Records an attempt's answer: the task succeeded, is retried, or failed for good.
    private func finish(_ started: Started, answer: Answer) async {
        let now = clock.now
        let key = started.key
        state.withLock { state in
            state.lanes[key.queue]?.running -= 1
            guard var task = state.tasks[key], task.createTime == started.createTime,
                task.dispatchCount == started.attempt
            else { return }
            task.lastResponseStatus = answer.status
            task.lastError = Self.reason(answer)
            if let status = answer.status, status < 500 { task.responseCount += 1 }
            if task.state == .dispatching {
                let retry = state.lanes[key.queue]?.queue?.trigger.retryConfig ?? TaskRetryConfig()
                if answer.status.map({ (200..<300).contains($0) }) ?? false {
                    task.state = .succeeded
                    task.finishTime = now
                } else if let time = retry.retryTime(afterAttempts: task.dispatchCount,
                    firstAttempt: task.firstAttemptTime ?? now, now: now)
                {
                    task.state = .queued
                    task.scheduleTime = time
                    state.schedule(task)
                } else {
                    task.state = .failed
                    task.finishTime = now
                    logger.warning("a task failed for good", metadata: [
                        "queue": "\(key.queue)", "task": "\(key.id)", "attempts": "\(task.dispatchCount)",
                        "error": "\(task.lastError ?? "")",
                    ])
                }
            }
            state.tasks[key] = task
        }
        do {
            try await persist(key)
        } catch {
            logger.error("could not store a task's attempt", metadata: ["task": "\(key.id)", "error": "\(error)"])
        }
        pump()
    }

    /// Why an attempt failed, short and on one line (it goes out as a header on the retry);
    /// `nil` for a success.
    static func reason(_ answer: Answer) -> String? {
        if let status = answer.status, (200..<300).contains(status) { return nil }
        let text = answer.error ?? answer.status.map { "HTTP \($0)" } ?? "no answer"
        let line = String(text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : " " })
        return line.count > 200 ? String(line.prefix(197)) + "..." : line
    }
}
