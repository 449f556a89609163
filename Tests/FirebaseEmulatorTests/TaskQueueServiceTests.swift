import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Synchronization
import Testing

/// The emulator's task queues on a manual clock: schedule times, ids, retries, rate limits and
/// restarts, as Cloud Tasks has them.
@Suite("Emulator: task queues")
struct TaskQueueServiceTests {
    /// What the queue sent: when, and the headers.
    final class Dispatches: Sendable {
        struct Sent: Sendable {
            var time: Date
            var headers: [String: String]
        }

        private let sent = Mutex<[Sent]>([])
        /// The status each attempt answers, in turn; 204 once they run out.
        private let statuses: Mutex<[Int]>
        let stream: AsyncStream<Sent>
        private let continuation: AsyncStream<Sent>.Continuation

        init(answering statuses: [Int] = []) {
            self.statuses = Mutex(statuses)
            (stream, continuation) = AsyncStream.makeStream()
        }

        var all: [Sent] { sent.withLock { $0 } }

        func dispatch(clock: ManualClock) -> TaskQueueService.Dispatch {
            { attempt in
                let item = Sent(time: clock.now, headers: Dictionary(attempt.headers, uniquingKeysWith: { $1 }))
                self.sent.withLock { $0.append(item) }
                self.continuation.yield(item)
                let status = self.statuses.withLock { $0.isEmpty ? 204 : $0.removeFirst() }
                return TaskQueueService.Answer(status: status)
            }
        }
    }

    static let start = RFC3339Timestamp.date(from: "2026-11-29T10:00:00Z")!

    static func queue(_ retry: TaskRetryConfig = TaskRetryConfig(), rate: Double = 500, concurrent: Int = 1000)
        -> [String: TaskQueueService.Queue]
    {
        ["recount": TaskQueueService.Queue(trigger: TaskQueueTrigger(retryConfig: retry,
            rateLimits: TaskRateLimits(maxConcurrentDispatches: concurrent, maxDispatchesPerSecond: rate)),
            location: "us-central1", timeout: .seconds(60))]
    }

    static func enqueue(_ emulator: Emulator, id: String? = nil, at time: Date? = nil) async throws -> QueuedTask {
        try await emulator.taskQueues.enqueue(queue: "recount", location: "us-central1", id: id,
            body: Data(#"{"data":{}}"#.utf8), headers: ["Content-Type": "application/json"], scheduleTime: time,
            dispatchDeadline: nil)
    }

    @Test("a task waits for its schedule time; one that fails twice is retried after 1 s, then 2 s, and succeeds",
        .timeLimit(.minutes(1)))
    func scheduleTimeAndRetries() async throws {
        let clock = ManualClock(now: Self.start)
        let emulator = try Emulator(project: "demo-project", directory: nil, clock: clock)
        let dispatches = Dispatches(answering: [503, 500])
        try await emulator.withRunning {
            emulator.taskQueues.deploy(Self.queue(TaskRetryConfig(minBackoff: .seconds(1))),
                dispatch: dispatches.dispatch(clock: clock))
            let task = try await Self.enqueue(emulator, id: "later", at: Self.start.addingTimeInterval(60))
            await emulator.taskQueues.waitUntilIdle()
            #expect(dispatches.all.isEmpty, "not due for a minute")
            clock.advance(by: .seconds(59))
            await emulator.taskQueues.waitUntilIdle()
            #expect(dispatches.all.isEmpty, "not a second early")
            // Each attempt is answered (and its retry scheduled) before the clock moves on.
            for step in [1, 1, 2] {
                clock.advance(by: .seconds(step))
                await emulator.taskQueues.waitUntilIdle()
            }
            await emulator.taskQueues.waitUntilIdle(includingScheduled: true)
            let sent = dispatches.all
            #expect(sent.map { $0.time.timeIntervalSince(Self.start) } == [60, 61, 63])
            #expect(sent.map { $0.headers[Tasks.retryCountHeader] } == ["0", "1", "2"])
            #expect(sent.map { $0.headers[Tasks.executionCountHeader] } == ["0", "0", "0"], "5xx answers are not executions")
            #expect(sent.map { $0.headers[Tasks.previousResponseHeader] } == [nil, "503", "500"])
            #expect(sent.allSatisfy { $0.headers[Tasks.taskNameHeader] == "later" && $0.headers[Tasks.queueNameHeader] == "recount" })
            // The ETA is the schedule time each attempt was due at, in seconds since 1970.
            #expect(sent.map { $0.headers[Tasks.etaHeader].flatMap(Double.init) }
                == [60.0, 61, 63].map { Self.start.timeIntervalSince1970 + $0 })
            let done = try #require(emulator.taskQueues.task(queue: "recount", location: "us-central1", id: task.id))
            #expect(done.state == .succeeded && done.dispatchCount == 3 && done.responseCount == 1)
        }
    }

    @Test("attempts stop only when both maxAttempts and maxRetryDuration are spent", .timeLimit(.minutes(1)))
    func bothLimits() async throws {
        let clock = ManualClock(now: Self.start)
        let emulator = try Emulator(project: "demo-project", directory: nil, clock: clock)
        let dispatches = Dispatches(answering: Array(repeating: 500, count: 10))
        try await emulator.withRunning {
            emulator.taskQueues.deploy(Self.queue(TaskRetryConfig(maxAttempts: 2, maxRetryDuration: .seconds(10),
                minBackoff: .seconds(4), maxDoublings: 0)), dispatch: dispatches.dispatch(clock: clock))
            let task = try await Self.enqueue(emulator)
            for _ in 0..<3 {
                await emulator.taskQueues.waitUntilIdle()
                clock.advance(by: .seconds(4))
            }
            await emulator.taskQueues.waitUntilIdle(includingScheduled: true)
            #expect(dispatches.all.map { $0.time.timeIntervalSince(Self.start) } == [0, 4, 12],
                "a third attempt, as 10 s had not passed after the second")
            #expect(emulator.taskQueues.task(queue: "recount", location: "us-central1", id: task.id)?.state == .failed)
        }
    }

    @Test("an id is refused while its task exists and for an hour after it ran or was deleted; unknown queues are 404",
        .timeLimit(.minutes(1)))
    func ids() async throws {
        let clock = ManualClock(now: Self.start)
        let emulator = try Emulator(project: "demo-project", directory: nil, clock: clock)
        let dispatches = Dispatches()
        try await emulator.withRunning {
            await #expect(throws: ServiceError(.notFound, "Queue does not exist.")) { try await Self.enqueue(emulator) }
            emulator.taskQueues.deploy(Self.queue(), dispatch: dispatches.dispatch(clock: clock))
            let exists = ServiceError(.alreadyExists, "Requested entity already exists")
            _ = try await Self.enqueue(emulator, id: "a")
            await #expect(throws: exists) { try await Self.enqueue(emulator, id: "a") }
            await emulator.taskQueues.waitUntilIdle()
            #expect(dispatches.all.count == 1)
            await #expect(throws: exists) { try await Self.enqueue(emulator, id: "a") }

            _ = try await Self.enqueue(emulator, id: "b", at: Self.start.addingTimeInterval(600))
            try await emulator.taskQueues.delete(queue: "recount", location: "us-central1", id: "b")
            await #expect(throws: ServiceError(.notFound, "Requested entity was not found.")) {
                try await emulator.taskQueues.delete(queue: "recount", location: "us-central1", id: "b")
            }
            await #expect(throws: exists) { try await Self.enqueue(emulator, id: "b") }
            await #expect(throws: ServiceError(.invalidArgument, "a task id is 1 to 500 letters, digits, '-' or '_', not 'a/b'")) {
                try await Self.enqueue(emulator, id: "a/b")
            }
            await #expect(throws: ServiceError(.notFound, "Queue does not exist.")) {
                try await emulator.taskQueues.enqueue(queue: "recount", location: "europe-west1", id: nil, body: Data(),
                    headers: [:], scheduleTime: nil, dispatchDeadline: nil)
            }

            clock.advance(by: .seconds(3_600))
            _ = try await Self.enqueue(emulator, id: "a")
            _ = try await Self.enqueue(emulator, id: "b")
            // 500 dispatches a second: the second task's slot is 2 ms after the first's.
            clock.advance(by: .seconds(1))
            await emulator.taskQueues.waitUntilIdle(includingScheduled: true)
            #expect(dispatches.all.count == 3, "b ran only once enqueued again: deleted, it never ran")
        }
    }

    @Test("a queue starts at most maxDispatchesPerSecond attempts a second, evenly spaced", .timeLimit(.minutes(1)))
    func rateLimit() async throws {
        let clock = ManualClock(now: Self.start)
        let emulator = try Emulator(project: "demo-project", directory: nil, clock: clock)
        let dispatches = Dispatches()
        try await emulator.withRunning {
            emulator.taskQueues.deploy(Self.queue(rate: 2), dispatch: dispatches.dispatch(clock: clock))
            for _ in 0..<6 { _ = try await Self.enqueue(emulator) }
            var iterator = dispatches.stream.makeAsyncIterator()
            _ = await iterator.next()
            for _ in 0..<5 {
                clock.advance(by: .milliseconds(500))
                _ = await iterator.next()
            }
            await emulator.taskQueues.waitUntilIdle(includingScheduled: true)
            #expect(dispatches.all.map { $0.time.timeIntervalSince(Self.start) } == [0, 0.5, 1, 1.5, 2, 2.5])
        }
    }

    @Test("a queue runs at most maxConcurrentDispatches attempts at once", .timeLimit(.minutes(1)))
    func concurrencyLimit() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        let running = Mutex((now: 0, most: 0, waiting: [CheckedContinuation<Void, Never>]()))
        let started = AsyncStream.makeStream(of: Void.self)
        try await emulator.withRunning {
            emulator.taskQueues.deploy(Self.queue(concurrent: 2)) { _ in
                await withCheckedContinuation { continuation in
                    running.withLock { state in
                        state.now += 1
                        state.most = max(state.most, state.now)
                        state.waiting.append(continuation)
                    }
                    started.continuation.yield()
                }
                running.withLock { $0.now -= 1 }
                return TaskQueueService.Answer(status: 200)
            }
            for _ in 0..<5 { _ = try await Self.enqueue(emulator) }
            var iterator = started.stream.makeAsyncIterator()
            for _ in 0..<5 {
                _ = await iterator.next()
                let next = running.withLock { state -> CheckedContinuation<Void, Never>? in
                    // Released one at a time, once two run (or the last one alone).
                    state.waiting.isEmpty ? nil : state.waiting.removeFirst()
                }
                next?.resume()
            }
            while let next = running.withLock({ $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }) { next.resume() }
            await emulator.taskQueues.waitUntilIdle(includingScheduled: true)
            #expect(running.withLock { $0.most } <= 2)
            #expect(emulator.taskQueues.tasks(in: "recount").allSatisfy { $0.state == .succeeded })
        }
    }

    @Test("tasks survive a restart: one scheduled runs at its time, one that was running runs again",
        .timeLimit(.minutes(1)))
    func restart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock(now: Self.start)
        let first = try Emulator(project: "demo-project", directory: directory, clock: clock)
        try await first.withRunning {
            first.taskQueues.deploy(Self.queue(), dispatch: Dispatches(answering: [500]).dispatch(clock: clock))
            _ = try await Self.enqueue(first, id: "scheduled", at: Self.start.addingTimeInterval(300))
            _ = try await Self.enqueue(first, id: "retried")
            await first.taskQueues.waitUntilIdle()
        }
        let second = try Emulator(project: "demo-project", directory: directory, clock: clock)
        let dispatches = Dispatches()
        try await second.withRunning {
            #expect(second.taskQueues.task(queue: "recount", location: "us-central1", id: "retried")?.dispatchCount == 1)
            second.taskQueues.deploy(Self.queue(), dispatch: dispatches.dispatch(clock: clock))
            var iterator = dispatches.stream.makeAsyncIterator()
            clock.advance(by: .seconds(300))
            _ = await iterator.next()
            clock.advance(by: .seconds(1))  // past the second task's dispatch slot
            _ = await iterator.next()
            await second.taskQueues.waitUntilIdle(includingScheduled: true)
            #expect(Set(dispatches.all.compactMap { $0.headers[Tasks.taskNameHeader] }) == ["scheduled", "retried"])
            #expect(dispatches.all.first { $0.headers[Tasks.taskNameHeader] == "retried" }?.headers[Tasks.retryCountHeader] == "1")
            await #expect(throws: ServiceError.self, "ids stay taken across the restart") {
                try await Self.enqueue(second, id: "scheduled")
            }
        }
    }
}

/// Task-queue functions deployed in process: an event function enqueues through
/// `context.tasks`, and the queue dispatches to the task function.
@Suite("Emulator: task queues in process")
struct InProcessTaskQueueTests {
    struct Recount: Codable, Sendable {
        var playerName: String
    }

    @Test("an event function enqueues with context.tasks; the queue runs the task function, which writes", .timeLimit(.minutes(1)))
    func enqueueFromAFunction() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        var functions = FunctionRegistry()
        functions["onScore"] = Database.ref("/scores/{id}").onCreate { snapshot, context in
            let player = snapshot.child("playerName").val().stringValue ?? ""
            do {
                try await context.tasks.enqueue(Recount(playerName: player), to: "recount", id: "recount-\(player)")
            } catch let error as TaskQueueError where error.status == "ALREADY_EXISTS" {
                // One recount per player: a second enqueue is refused, which is what the id is for.
            }
        }
        functions["recount"] = Tasks.queue().onDispatch { (request: TaskRequest<Recount>) in
            try await request.context.database.ref("recounted/\(request.data.playerName)")
                .set(.string(request.task.id))
        }
        try await emulator.withRunning {
            try await emulator.deploy(functions)
            for id in ["a", "b"] {
                try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "scores/\(id)",
                    value: ["playerName": "ada"])
            }
            await emulator.waitUntilIdle(includingRetries: true)
            #expect(try await emulator.admin.database.get("recounted") == ["ada": "recount-ada"])
            let log = try emulator.store.eventLog()
            #expect(log.count == 2 && log.allSatisfy(\.done), "the two score events, both handled")
            #expect(emulator.taskQueues.tasks(in: "recount").map(\.state) == [.succeeded],
                "the second score's enqueue was refused: the id was taken")
        }
    }
}
