import CloudEvents
import CloudFunctions
import FunctionsBus
import CloudFunctionsTesting
import Foundation
import Synchronization
import ServiceLifecycle
import Logging
import Testing

@Suite("Event bus delivery")
struct EventBusTests {
    static func write(_ ref: String, id: String = UUID().uuidString, time: Date? = nil,
        type: String = FirebaseEventType.databaseWritten) -> CloudEvent
    {
        CloudEvent.databaseWrite(type: type, instance: "db", ref: ref, before: .null, delta: ["v": 1], id: id,
            time: time ?? Date(timeIntervalSince1970: 1_700_000_000))
    }

    static var noJitter: EventBus.Configuration {
        var configuration = EventBus.Configuration()
        configuration.random = { 0 }
        return configuration
    }

    @Test("delivers an event once to each function whose type, filters and patterns match")
    func matching() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["user"] = Database.ref("users/{uid}").onWrite { _, c in calls.add("user:\(c.params["uid"]!)") }
        functions["userAgain"] = Database.ref("/users/{id}").onWrite { _, c in calls.add("again:\(c.params["id"]!)") }
        functions["created"] = Database.ref("users/{uid}").onCreate { _, _ in calls.add("created") }
        functions["name"] = Database.ref("users/{uid}/name").onWrite { _, _ in calls.add("name") }
        functions["otherDB"] = Database.instance("other").ref("users/{uid}").onWrite { _, _ in calls.add("other") }
        functions["sameDB"] = Database.instance("db").ref("users/{uid}").onWrite { _, _ in calls.add("db") }
        functions["rc"] = RemoteConfig.onUpdate { _, _ in calls.add("rc") }
        let runtime = try TestRuntime(functions)
        await runtime.withRunning {

            let delivered = await runtime.deliver(Self.write("users/abc"))
            #expect(Set(delivered) == ["user", "userAgain", "sameDB"])
            #expect(calls.all.sorted() == ["again:abc", "db", "user:abc"])
        }
    }

    @Test("functions with the same trigger each get the event once, listed in registration order")
    func sameTrigger() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["a"] = Database.ref("users/{uid}").onWrite { _, c in calls.add("a:\(c.params["uid"]!)") }
        functions["b"] = Database.ref("other/{x}").onWrite { _, _ in calls.add("b") }
        functions["c"] = Database.ref("users/{uid}").onWrite { _, c in calls.add("c:\(c.params["uid"]!)") }
        functions["d"] = Database.ref("/users/{uid}/").onWrite { _, c in calls.add("d:\(c.params["uid"]!)") }
        functions["e"] = Database.ref("users/{id}").onWrite { _, c in calls.add("e:\(c.params["id"]!)") }
        let bus = try EventBus(functions: functions)
        await bus.withRunning {
            let result = bus.publish(Self.write("users/42", time: Date()))
            #expect(result.functions == ["a", "c", "d", "e"])
            #expect(bus.publish(Self.write("other/1", time: Date())).functions == ["b"])
            await bus.waitUntilIdle()
            #expect(calls.all.sorted() == ["a:42", "b", "c:42", "d:42", "e:42"])
        }
    }

    @Test("drops a duplicate of an event already accepted, by source and id")
    func deduplicates() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").onWrite { _, c in calls.add(c.eventId) }
        let runtime = try TestRuntime(functions)
        await runtime.withRunning {
            #expect(await runtime.deliver(Self.write("a/1", id: "same")) == ["f"])
            let again = runtime.bus.publish(Self.write("a/1", id: "same"))
            #expect(again.duplicate)
            #expect(again.functions.isEmpty)
            await runtime.bus.waitUntilIdle()
            #expect(calls.all == ["same"])
        }
    }

    @Test("remembers at least the latest window of event ids, and forgets those beyond twice the window")
    func deduplicationWindow() throws {
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").onWrite { _, _ in }
        var configuration = EventBus.Configuration()
        configuration.deduplicationWindow = 3
        let bus = try EventBus(functions: functions, clock: ManualClock(), configuration: configuration)
        for index in 0..<6 { #expect(!bus.publish(Self.write("a/1", id: "e\(index)")).duplicate) }
        for index in 3..<6 { #expect(bus.publish(Self.write("a/1", id: "e\(index)")).duplicate) }
        #expect(!bus.publish(Self.write("a/1", id: "e0")).duplicate)
    }

    @Test("in a service group, a graceful shutdown lets the events queued run, then the bus ends and takes no more",
        .timeLimit(.minutes(1)))
    func gracefulShutdown() async throws {
        let calls = Calls()
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").options(.concurrency(1)).onWrite { _, c in
            calls.add(c.params["x"] ?? "")
            start.yield()
            for await _ in gate {}
        }
        let bus = try EventBus(functions: functions)
        let group = ServiceGroup(services: [bus], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for index in 0..<3 { bus.publish(Self.write("a/\(index)", time: Date())) }
            var iterator = started.makeAsyncIterator()
            await iterator.next()
            await group.triggerGracefulShutdown()
            open.finish()
            try await tasks.waitForAll()
        }
        #expect(calls.all == ["0", "1", "2"])
        #expect(bus.publish(Self.write("a/9", time: Date())).functions.isEmpty)
    }

    @Test("cancelling the bus's run cancels the handler running, and the bus takes no more events",
        .timeLimit(.minutes(1)))
    func cancelledRun() async throws {
        let calls = Calls()
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").onWrite { _, _ in
            start.yield()
            do {
                try await Task.sleep(for: .seconds(3600))
                calls.add("slept")
            } catch {
                calls.add("cancelled")
            }
        }
        let bus = try EventBus(functions: functions)
        let run = Task { await bus.run() }
        bus.publish(Self.write("a/1", time: Date()))
        var iterator = started.makeAsyncIterator()
        await iterator.next()
        run.cancel()
        await run.value
        #expect(calls.all == ["cancelled"])
        #expect(bus.publish(Self.write("a/2", time: Date())).functions.isEmpty)
    }

    @Test("retries with exponential backoff, keeping the event id, until the handler succeeds")
    func retries() async throws {
        let calls = Calls()
        let failuresLeft = Mutex(3)
        var functions = FunctionRegistry()
        functions["flaky"] = Database.ref("a/{x}").options(.retry(true)).onWrite { _, context in
            calls.add("\(context.eventId)#\(context.attempt)")
            if failuresLeft.withLock({ $0 -= 1; return $0 >= 0 }) { throw HandlerFailure() }
        }
        let runtime = try TestRuntime(functions, configuration: Self.noJitter)
        await runtime.withRunning {
            let start = runtime.clock.now
            await runtime.deliver(Self.write("a/1", id: "evt", time: start))
            #expect(calls.all == ["evt#1"])
            let reports = runtime.deliveries.all
            #expect(reports.last?.status == .willRetry(at: start.addingTimeInterval(10)))
            #expect(reports.last?.error == "boom")

            await runtime.advance(by: .seconds(9))
            #expect(calls.all.count == 1)
            await runtime.advance(by: .seconds(1))
            #expect(calls.all == ["evt#1", "evt#2"])
            await runtime.advance(by: .seconds(20))
            #expect(calls.all == ["evt#1", "evt#2", "evt#3"])
            await runtime.advance(by: .seconds(39))
            #expect(calls.all.count == 3)
            await runtime.advance(by: .seconds(1))
            #expect(calls.all == ["evt#1", "evt#2", "evt#3", "evt#4"])
            #expect(runtime.deliveries.all.last?.status == .succeeded)
            #expect(runtime.bus.deadLetters.isEmpty)
        }
    }

    @Test("an event is finished once every function it went to succeeded or gave up on it")
    func finishedEvents() async throws {
        let failuresLeft = Mutex(1)
        var functions = FunctionRegistry()
        functions["steady"] = Database.ref("a/{x}").onWrite { _, _ in }
        functions["flaky"] = Database.ref("a/{x}").options(.retry(true)).onWrite { _, _ in
            if failuresLeft.withLock({ $0 -= 1; return $0 >= 0 }) { throw HandlerFailure() }
        }
        functions["failing"] = Database.ref("b/{x}").onWrite { _, _ in throw HandlerFailure() }
        let runtime = try TestRuntime(functions, configuration: Self.noJitter)
        await runtime.withRunning {
            let first = Self.write("a/1", id: "two-functions", time: runtime.clock.now)
            await runtime.deliver(first)
            #expect(runtime.deliveries.finished.isEmpty, "flaky waits for its retry")
            runtime.bus.publish(first)
            await runtime.bus.waitUntilIdle()
            #expect(runtime.deliveries.finished.isEmpty, "a duplicate of an event in flight is not finished on its own")
            await runtime.advance(by: .seconds(10))
            #expect(runtime.deliveries.finished == [first.key])

            let unmatched = Self.write("c/1", id: "no-function")
            let deadLettered = Self.write("b/1", id: "dead-letter")
            await runtime.deliver(unmatched)
            await runtime.deliver(deadLettered)
            runtime.bus.publish(first)
            await runtime.bus.waitUntilIdle()
            #expect(runtime.deliveries.finished == [first.key, unmatched.key, deadLettered.key, first.key])
            #expect(runtime.deliveries.finished.count == Set(runtime.deliveries.finished).count + 1,
                "a duplicate after the event finished is finished again, at once")
        }
    }

    @Test("waiting including retries returns once the scheduled retry has run, not before")
    func waitIncludingRetries() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["flaky"] = Database.ref("a/{x}").options(.retry(true)).onWrite { _, _ in
            calls.add("attempt")
            if calls.all.count == 1 { throw HandlerFailure() }
        }
        let runtime = try TestRuntime(functions, configuration: Self.noJitter)
        await runtime.withRunning {
            runtime.bus.publish(Self.write("a/1", id: "retried", time: runtime.clock.now))
            let bus = runtime.bus
            let drained = Task {
                await bus.waitUntilIdle(includingRetries: true)
                return calls.all.count
            }
            await runtime.bus.waitUntilIdle()
            #expect(calls.all.count == 1, "the retry waits for its time")
            await runtime.advance(by: .seconds(10))
            #expect(await drained.value == 2)
        }
    }

    @Test("jitter shortens backoff delays by at most the jitter fraction")
    func jitter() {
        let policy = BackoffPolicy(initial: .seconds(10), maximum: .seconds(600), multiplier: 2, jitter: 0.5)
        #expect(policy.delay(afterAttempt: 1, random: 0) == .seconds(10))
        #expect(policy.delay(afterAttempt: 1, random: 0.999) > .seconds(5))
        #expect(policy.delay(afterAttempt: 3, random: 0.5) == .seconds(30))
        #expect(policy.delay(afterAttempt: 20, random: 0) == .seconds(600))
    }

    @Test("a failure without retry becomes a dead letter with the error, after one attempt")
    func noRetry() async throws {
        var functions = FunctionRegistry()
        functions["fails"] = Database.ref("a/{x}").onWrite { _, _ in throw HandlerFailure() }
        let runtime = try TestRuntime(functions)
        try await runtime.withRunning {
            await runtime.deliver(Self.write("a/1", id: "e1"))
            let letter = try #require(runtime.bus.deadLetters.first)
            #expect(letter.function == "fails")
            #expect(letter.event.id == "e1")
            #expect(letter.attempts == 1)
            #expect(letter.reason == .failed)
            #expect(letter.lastError == "boom")
            await runtime.advance(by: .seconds(3600))
            #expect(runtime.deliveries.all.count == 1)
        }
    }

    @Test("stops after maxAttempts and keeps the last error")
    func exhaustsAttempts() async throws {
        let attempts = Calls()
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").options(.retry(true), .maxAttempts(3)).onWrite { _, c in
            attempts.add("\(c.attempt)")
            throw HandlerFailure()
        }
        let runtime = try TestRuntime(functions, configuration: Self.noJitter)
        try await runtime.withRunning {
            await runtime.deliver(Self.write("a/1"))
            await runtime.advance(by: .seconds(10))
            await runtime.advance(by: .seconds(20))
            await runtime.advance(by: .seconds(3600))
            #expect(attempts.all == ["1", "2", "3"])
            let letter = try #require(runtime.bus.deadLetters.first)
            #expect(letter.reason == .exhausted)
            #expect(letter.attempts == 3)
            #expect(letter.lastError == "boom")
        }
    }

    @Test("stops retrying when the next retry would fall outside the maximum event age")
    func retryWindow() async throws {
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").options(.retry(true), .maxEventAge(.seconds(25))).onWrite { _, _ in
            throw HandlerFailure()
        }
        let runtime = try TestRuntime(functions, configuration: Self.noJitter)
        await runtime.withRunning {
            await runtime.deliver(Self.write("a/1", time: runtime.clock.now))
            await runtime.advance(by: .seconds(10))
            #expect(runtime.bus.deadLetters.map(\.reason) == [.exhausted])
            #expect(runtime.bus.deadLetters.first?.attempts == 2)
        }
    }

    @Test("drops events older than the maximum age without running the handler")
    func maxAge() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").options(.maxEventAge(.seconds(60))).onWrite { _, _ in calls.add("ran") }
        let runtime = try TestRuntime(functions)
        await runtime.withRunning {
            await runtime.deliver(Self.write("a/old", time: runtime.clock.now.addingTimeInterval(-61)))
            await runtime.deliver(Self.write("a/new", time: runtime.clock.now.addingTimeInterval(-59)))
            #expect(calls.all == ["ran"])
            #expect(runtime.bus.deadLetters.map(\.reason) == [.expired])
            #expect(runtime.bus.deadLetters.first?.attempts == 0)
        }
    }

    @Test("times out a handler, cancels it, frees its slot and retries")
    func timeouts() async throws {
        let calls = Calls()
        let clock = ManualClock()
        var functions = FunctionRegistry()
        functions["slow"] = Database.ref("a/{x}").options(.retry(true), .timeout(.seconds(5)), .concurrency(1))
            .onWrite { _, context in
                calls.add("start \(context.params["x"]!) #\(context.attempt)")
                if context.params["x"] == "hang", context.attempt == 1 {
                    do {
                        try await clock.sleep(until: .distantFuture)
                    } catch {
                        calls.add("cancelled")
                        throw error
                    }
                }
            }
        let runtime = try TestRuntime(functions, clock: clock, configuration: Self.noJitter)
        try await runtime.withRunning {
            runtime.bus.publish(Self.write("a/hang", time: clock.now))
            runtime.bus.publish(Self.write("a/next", time: clock.now))
            // The handler and the bus's timer both sleep on the clock once the first attempt runs.
            while clock.sleeperCount < 2 { await Task.yield() }
            #expect(calls.all == ["start hang #1"])
            clock.advance(by: .seconds(5))
            await runtime.bus.waitUntilIdle()
            #expect(calls.all.contains("start next #1"))
            #expect(calls.all.contains("cancelled"))
            let report = try #require(runtime.deliveries.reports(for: "slow").first { $0.error != nil })
            #expect(report.error == "timed out after 5 s")
            #expect(report.status == .willRetry(at: clock.now.addingTimeInterval(10)))
            await runtime.advance(by: .seconds(10))
            #expect(calls.all.last == "start hang #2")
            #expect(runtime.bus.deadLetters.isEmpty)
        }
    }

    @Test("events keep arriving as two drainers of a function go idle together, round after round", .timeLimit(.minutes(1)))
    func drainersGoingIdleTogether() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").options(.concurrency(2)).onWrite { _, context in
            await Task.yield()
            calls.add(context.params["x"] ?? "")
        }
        let runtime = try TestRuntime(functions)
        await runtime.withRunning {
            // Two drainers finish together and both try to park: one parks, the other ends, and the
            // next event must find the parked one (or a new one), or waitUntilIdle never returns.
            for round in 0..<1_000 {
                runtime.bus.publish(contentsOf: [Self.write("a/\(round)-1"), Self.write("a/\(round)-2")])
                await runtime.bus.waitUntilIdle()
                runtime.bus.publish(Self.write("a/\(round)-3"))
                await runtime.bus.waitUntilIdle()
            }
            #expect(calls.all.count == 3_000)
        }
    }

    @Test("runs at most `concurrency` invocations of a function at once; the rest wait their turn in order")
    func concurrencyLimit() async throws {
        // Each invocation holds until the test lets it go.
        let held = Mutex<[(index: Int, release: CheckedContinuation<Void, Never>)]>([])
        let running = Mutex((now: 0, peak: 0))
        var functions = FunctionRegistry()
        functions["limited"] = Database.ref("a/{x}").options(.concurrency(3)).onWrite { _, context in
            running.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
            let index = Int(context.params["x"]!)!
            await withCheckedContinuation { release in held.withLock { $0.append((index, release)) } }
            running.withLock { $0.now -= 1 }
        }
        let runtime = try TestRuntime(functions)
        await runtime.withRunning {
            for index in 0..<10 { runtime.bus.publish(Self.write("a/\(index)")) }
            for finished in 0..<10 {
                let expected = min(3, 10 - finished)
                while held.withLock({ $0.count }) < expected { await Task.yield() }
                // The three oldest not yet finished run; the others wait.
                #expect(Set(held.withLock { $0.map(\.index) }) == Set(finished..<finished + expected))
                let oldest = held.withLock { held in held.remove(at: held.indices.min { held[$0].index < held[$1].index }!) }
                oldest.release.resume()
            }
            await runtime.bus.waitUntilIdle()
            #expect(runtime.deliveries.all.count == 10)
            #expect(running.withLock { $0.peak } == 3)
            #expect(runtime.deliveries.all.allSatisfy { $0.status == .succeeded })
        }
    }

    @Test("replays a dead letter with fresh attempts")
    func replay() async throws {
        let shouldFail = Mutex(true)
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").onWrite { _, _ in
            if shouldFail.withLock({ $0 }) { throw HandlerFailure() }
        }
        let runtime = try TestRuntime(functions)
        try await runtime.withRunning {
            await runtime.deliver(Self.write("a/1"))
            let letter = try #require(runtime.bus.deadLetters.first)
            shouldFail.withLock { $0 = false }
            #expect(runtime.bus.replayDeadLetter(id: letter.id))
            #expect(!runtime.bus.replayDeadLetter(id: "unknown"))
            await runtime.bus.waitUntilIdle()
            #expect(runtime.bus.deadLetters.isEmpty)
            #expect(runtime.deliveries.all.last?.status == .succeeded)
        }
    }

    @Test("rejects a registry with problems")
    func rejectsBadRegistry() {
        var functions = FunctionRegistry()
        functions["f"] = RemoteConfig.onUpdate { _, _ in }.options(.timeout(.seconds(0)))
        #expect(throws: RegistryError.self) { try EventBus(functions: functions) }
    }

    @Test("shutdown finishes queued work and refuses new events")
    func shutdownFinishesQueuedWork() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("a/{x}").onWrite { _, _ in calls.add("x") }
        let bus = try EventBus(functions: functions, clock: ManualClock())
        await bus.withRunning {
            for index in 0..<10 { bus.publish(Self.write("a/\(index)")) }
            await bus.shutdown()
            #expect(calls.all.count == 10)
            #expect(bus.publish(Self.write("a/late")).functions.isEmpty)
        }
    }

    @Test("shutdown waits for a handler still running and ends a pending retry's timer", .timeLimit(.minutes(1)))
    func shutdownEndsEveryTask() async throws {
        let release = AsyncStream.makeStream(of: Void.self)
        let started = AsyncStream.makeStream(of: Void.self)
        var functions = FunctionRegistry()
        functions["retrying"] = Database.ref("r/{x}").options(.retry(true)).onWrite { _, _ in throw HandlerFailure() }
        functions["held"] = Database.ref("h/{x}").onWrite { _, _ in
            started.continuation.yield()
            for await _ in release.stream { break }
        }
        let bus = try EventBus(functions: functions, clock: ManualClock())
        await bus.withRunning {
            bus.publish(Self.write("r/1"))
            bus.publish(Self.write("h/1"))
            for await _ in started.stream { break }
            let finished = Mutex(false)
            let shutdown = Task {
                await bus.shutdown()
                finished.withLock { $0 = true }
            }
            for _ in 0..<100 { await Task.yield() }
            #expect(!finished.withLock { $0 }, "the held handler is still running")
            release.continuation.yield()
            // The retry is due in 10 s on a clock that never moves: its timer is cancelled, not awaited.
            await shutdown.value
            #expect(finished.withLock { $0 })
        }
    }

    @Test("publishers at once, to functions that fail once or wait: each runs each event to success once, and every event finishes once",
          .timeLimit(.minutes(1)))
    func concurrentPublishersAndFunctions() async throws {
        let clock = ManualClock()
        let attempts = Mutex<[String: Int]>([:])
        let successes = Mutex<[String: Int]>([:])
        var functions = FunctionRegistry()
        // Twelve functions on one path, so each event goes to all of them: half fail their first
        // attempt (and retry), a third wait between their start and end, concurrency 1 to 3.
        for index in 0..<12 {
            let name = "f\(index)"
            functions[name] = Database.ref("s/{x}").options(.retry(true), .concurrency(index % 3 + 1)).onWrite { _, context in
                let key = "\(name) \(context.eventId)"
                let attempt = attempts.withLock { $0[key, default: 0] += 1; return $0[key]! }
                if index.isMultiple(of: 2), attempt == 1 { throw HandlerFailure() }
                if index % 3 == 0 { await Task.yield() }
                successes.withLock { $0[key, default: 0] += 1 }
            }
        }
        let observer = RecordingObserver()
        let bus = try EventBus(functions: functions, clock: clock, configuration: Self.noJitter, observer: observer)
        await bus.withRunning {
            let batchSizes = (0..<25).map { $0 % 7 + 1 }
            await withTaskGroup(of: Void.self) { group in
                for publisher in 0..<4 {
                    group.addTask {
                        for (batch, size) in batchSizes.enumerated() {
                            bus.publish(contentsOf: (0..<size).map { Self.write("s/\(publisher)-\(batch)-\($0)", id: "\(publisher)-\(batch)-\($0)") })
                            await Task.yield()
                        }
                    }
                }
            }
            await bus.waitUntilIdle()
            // The retries wait for their time on the manual clock.
            clock.advance(by: .seconds(3600))
            await bus.waitUntilIdle()

            let events = 4 * batchSizes.reduce(0, +)
            let succeeded = successes.withLock { $0 }
            #expect(succeeded.count == 12 * events)
            #expect(succeeded.values.allSatisfy { $0 == 1 })
            let tries = attempts.withLock { $0 }
            #expect(tries.filter { $0.key.hasPrefix("f0 ") || $0.key.hasPrefix("f2 ") }.values.allSatisfy { $0 == 2 })
            #expect(tries.filter { $0.key.hasPrefix("f1 ") }.values.allSatisfy { $0 == 1 })
            #expect(observer.all.filter { $0.status == .succeeded }.count == 12 * events)
            #expect(observer.all.filter { if case .willRetry = $0.status { true } else { false } }.count == 6 * events)
            #expect(Set(observer.finished.map(\.id)).count == events)
            #expect(observer.finished.count == events)
            #expect(bus.deadLetters.isEmpty)
        }
    }

    @Test("an event and its duplicate published at the same moment: the event is finished only once its handler has run",
          .timeLimit(.minutes(1)))
    func racingDuplicatesFinishAfterTheirEvent() async throws {
        let handled = Mutex<Set<String>>([])
        var functions = FunctionRegistry()
        functions["f"] = Database.ref("d/{x}").onWrite { _, context in
            _ = handled.withLock { $0.insert(context.eventId) }
        }
        // Whatever is said finished before its handler ran: an outbox would mark it done, and lose
        // it if the process stopped then.
        let early = Mutex<[String]>([])
        let observer = FinishObserver { key in
            if !handled.withLock({ $0.contains(key.id) }) { early.withLock { $0.append(key.id) } }
        }
        let bus = try EventBus(functions: functions, observer: observer)
        await bus.withRunning {
            let events = (0..<10_000).map { Self.write("d/\($0)", id: "e\($0)", time: Date()) }
            // Two threads publish each event in step: both wait for the other before each publish.
            let arrived = Atomic<Int>(0)
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let group = DispatchGroup()
                for _ in 0..<2 {
                    group.enter()
                    Thread.detachNewThread {
                        for (position, event) in events.enumerated() {
                            arrived.add(1, ordering: .sequentiallyConsistent)
                            while arrived.load(ordering: .sequentiallyConsistent) < 2 * (position + 1) { sched_yield() }
                            bus.publish(event)
                        }
                        group.leave()
                    }
                }
                group.notify(queue: .global()) { done.resume() }
            }
            await bus.waitUntilIdle()
            #expect(early.withLock { $0 }.isEmpty)
            #expect(handled.withLock { $0.count } == events.count)
        }
    }

    @Test("a dead letter is listed only once the observer has heard the event is finished")
    func deadLetterListedAfterObserver() async throws {
        var functions = FunctionRegistry()
        functions["fails"] = Database.ref("/d/{id}").onWrite { _, _ in throw CallableError(.internal, "no") }
        let listedWhileTold = Mutex<Bool?>(nil)
        let busBox = Mutex<EventBus?>(nil)
        let observer = FinishObserver { _ in
            // What a replay would find while the observer records the give-up.
            listedWhileTold.withLock { $0 = !(busBox.withLock { $0 }?.deadLetters.isEmpty ?? true) }
        }
        let bus = try EventBus(functions: functions, observer: observer)
        await bus.withRunning {
            busBox.withLock { $0 = bus }
            bus.publish(Self.write("d/1", id: "e1", time: Date()))
            await bus.waitUntilIdle()
            #expect(listedWhileTold.withLock { $0 } == false)
            #expect(bus.deadLetters.map(\.event.id) == ["e1"])
        }
    }

    @Test("a retry pending at shutdown is dropped: coming due later, it neither runs nor keeps the bus busy",
          .timeLimit(.minutes(1)))
    func shutdownDropsPendingRetries() async throws {
        let clock = ManualClock()
        let attempts = Mutex(0)
        var functions = FunctionRegistry()
        functions["retrying"] = Database.ref("r/{x}").options(.retry(true)).onWrite { _, _ in
            attempts.withLock { $0 += 1 }
            throw HandlerFailure()
        }
        let bus = try EventBus(functions: functions, clock: clock)
        await bus.withRunning {
            bus.publish(Self.write("r/1"))
            await bus.waitUntilIdle()
            #expect(attempts.withLock { $0 } == 1, "the first attempt failed; its retry is due later")
            await bus.shutdown()
            clock.advance(by: .seconds(3600))
            await bus.waitUntilIdle()
            #expect(!Task.isCancelled, "idle, not given up on by the time limit")
            #expect(attempts.withLock { $0 } == 1)
            #expect(bus.deadLetters.isEmpty, "dropped, not given up on: the outbox delivers it again")
        }
    }

    @Test("a retry decided during shutdown is dropped too: the bus becomes idle, the observer heard the failure",
          .timeLimit(.minutes(1)))
    func retryDecidedDuringShutdown() async throws {
        let clock = ManualClock()
        let started = AsyncStream.makeStream(of: Void.self)
        let failNow = AsyncStream.makeStream(of: Void.self)
        let attempts = Mutex(0)
        var functions = FunctionRegistry()
        functions["retrying"] = Database.ref("r/{x}").options(.retry(true)).onWrite { _, _ in
            attempts.withLock { $0 += 1 }
            started.continuation.yield()
            for await _ in failNow.stream { break }
            throw HandlerFailure()
        }
        functions["probe"] = Database.ref("p/{x}").onWrite { _, _ in }
        let observer = RecordingObserver()
        let bus = try EventBus(functions: functions, clock: clock, observer: observer)
        await bus.withRunning {
            bus.publish(Self.write("r/1"))
            for await _ in started.stream { break }
            let shutdown = Task { await bus.shutdown() }
            // The bus refuses events once the shutdown has begun.
            while !bus.publish(Self.write("p/\(UUID())")).functions.isEmpty { await Task.yield() }
            failNow.continuation.yield()
            await shutdown.value
            clock.advance(by: .seconds(3600))
            await bus.waitUntilIdle()
            #expect(!Task.isCancelled, "idle, not given up on by the time limit")
            #expect(attempts.withLock { $0 } == 1)
            let reports = observer.reports(for: "retrying")
            #expect(reports.count == 1)
            #expect(reports.first.map { if case .willRetry = $0.status { true } else { false } } == true)
            #expect(bus.deadLetters.isEmpty)
        }
    }

    @Test("waitUntilIdle returns when its task is cancelled, the bus still busy", .timeLimit(.minutes(1)))
    func waitUntilIdleCancelled() async throws {
        let started = AsyncStream.makeStream(of: Void.self)
        let release = AsyncStream.makeStream(of: Void.self)
        var functions = FunctionRegistry()
        functions["held"] = Database.ref("h/{x}").onWrite { _, _ in
            started.continuation.yield()
            for await _ in release.stream { break }
        }
        let bus = try EventBus(functions: functions)
        await bus.withRunning {
            bus.publish(Self.write("h/1", time: Date()))
            for await _ in started.stream { break }
            let waiter = Task { await bus.waitUntilIdle() }
            waiter.cancel()
            // Should the wait not end, the time limit cancels the test, which lets the handler end.
            let timedOut = Mutex(false)
            await withTaskCancellationHandler {
                await waiter.value
            } onCancel: {
                timedOut.withLock { $0 = true }
                release.continuation.yield()
            }
            #expect(!timedOut.withLock { $0 }, "returned on its cancellation, not once the bus became idle")
            release.continuation.yield()
            await bus.waitUntilIdle()
        }
    }

    @Test("a handler timing out during shutdown is replaced, and what was queued still runs", .timeLimit(.minutes(1)))
    func timeoutDuringShutdown() async throws {
        let clock = ManualClock()
        let started = AsyncStream.makeStream(of: Void.self)
        let ran = Mutex<[String]>([])
        var functions = FunctionRegistry()
        functions["one"] = Database.ref("a/{x}").options(.timeout(.seconds(5)), .concurrency(1)).onWrite { _, context in
            if context.params["x"] == "stuck" {
                started.continuation.yield()
                let (forever, _) = AsyncStream.makeStream(of: Void.self)
                for await _ in forever {}   // until cancelled by the timeout
                return
            }
            ran.withLock { $0.append("\(context.params["x"]!) cancelled=\(Task.isCancelled)") }
        }
        let bus = try EventBus(functions: functions, clock: clock)
        await bus.withRunning {
            bus.publish(Self.write("a/stuck", time: clock.now))
            for await _ in started.stream { break }
            bus.publish(Self.write("a/b", time: clock.now))
            bus.publish(Self.write("a/c", time: clock.now))
            let shutdown = Task { await bus.shutdown() }
            for _ in 0..<100 { await Task.yield() }
            clock.advance(by: .seconds(5))
            await shutdown.value
            #expect(ran.withLock { $0 } == ["b cancelled=false", "c cancelled=false"])
            #expect(!bus.replayDeadLetter(id: bus.deadLetters.first?.id ?? ""), "a stopped bus replays nothing")
        }
    }
}
