import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import GRDB
import FunctionsBuiltins
import Synchronization
import Testing
import FunctionsBus

/// The whole loop in process: services, outbox, bus and functions with emulator-backed clients.
@Suite("Emulator: the in-process loop")
struct EmulatorLoopTests {
    static let template = #"""
        {"conditions": [{"name": "ios", "expression": "device.os == 'ios'"}],
         "parameters": {"welcome": {"defaultValue": {"value": "hi"}, "conditionalValues": {"ios": {"value": "hey"}}},
                        "color": {"defaultValue": {"value": "blue"}}},
         "version": {"description": "first"}}
        """#

    static func functions() -> FunctionRegistry {
        var functions = FunctionRegistry()
        functions.use(PushConfig(topic: "PUSH_RC"))
        functions["onScoreWrite"] = Database.ref("/scores/{scoreId}").options(.concurrency(1)).onWrite {
            change, context in
            guard let player = change.after.child("player").val().stringValue,
                let points = change.after.child("points").val().numberValue
            else { return }
            let best = context.database.ref("leaderboard/\(player)")
            let current = try await best.get().val().numberValue
            if current == nil || current! < points {
                try await best.set(.number(points))
            }
        }
        return functions
    }

    @Test("scores keep the leaderboard at each player's best, and a publish pings exactly PUSH_RC's devices")
    func leaderboardAndStalePing() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        try await emulator.withRunning {
            try await emulator.deploy(Self.functions())
            let db = emulator.defaultDatabaseInstance

            for (id, player, points) in [("s1", "ann", 10), ("s2", "bob", 7), ("s3", "ann", 4), ("s4", "ann", 12)] {
                try await emulator.database.set(namespace: db, path: "scores/\(id)", value: ["player": .string(player),
                    "points": .number(Double(points))])
                await emulator.waitUntilIdle()
            }
            #expect(try emulator.database.get(namespace: db, path: "leaderboard") == ["ann": 12, "bob": 7])

            let subscribed = try await emulator.messaging.registerDevices(count: 5, platform: "ios")
            let others = try await emulator.messaging.registerDevices(count: 2, platform: "android")
            _ = try await emulator.messaging.subscribe(tokens: subscribed, to: "PUSH_RC")
            _ = try await emulator.messaging.subscribe(tokens: others, to: "NEWS")

            let template = try RemoteConfigTemplate.decode(from: Data(Self.template.utf8))
            let published = try await emulator.remoteConfig.publish(template, ifMatch: "*")
            await emulator.waitUntilIdle()
            for token in subscribed {
                let inbox = try emulator.messaging.inbox(token: token)
                #expect(inbox.map(\.data) == [["CONFIG_STATE": "STALE"]])
                #expect(inbox.first?.apns?.isContentAvailable == true)
            }
            for token in others { #expect(try emulator.messaging.inbox(token: token).isEmpty) }

            var second = template
            second.parameters["color"] = try RemoteConfigTemplate.decode(
                from: Data(#"{"parameters": {"color": {"defaultValue": {"value": "red"}}}}"#.utf8)
            ).parameters["color"]
            _ = try await emulator.remoteConfig.publish(second, ifMatch: published.etag)
            await emulator.waitUntilIdle()
            let rollback = try await emulator.remoteConfig.rollback(to: published.template.versionNumber)
            await emulator.waitUntilIdle()
            #expect(rollback.template.version?.updateType == .rollback)
            #expect(try emulator.messaging.inbox(token: subscribed[0]).count == 3)
            for token in others { #expect(try emulator.messaging.inbox(token: token).isEmpty) }

            let log = try emulator.store.eventLog()
            let configEvents = log.filter { $0.entry.event.type == FirebaseEventType.remoteConfigUpdated }
            #expect(configEvents.count == 3)
            let lastVersion = try JSONDecoder().decode(TemplateVersion.self, from: configEvents.last!.entry.event.data!)
            #expect(lastVersion.updateType == .rollback)
            #expect(lastVersion.rollbackSource == published.template.versionNumber)
            #expect(configEvents.allSatisfy { $0.done && $0.deliveries.map(\.status) == ["succeeded"] })
        }
    }

    @Test("every delivered event is marked done, even when its function finishes before publish returns")
    func everyEventDone() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        try await emulator.withRunning {
            var functions = FunctionRegistry()
            functions["instant"] = Database.ref("/items/{id}").onWrite { _, _ in }
            try await emulator.deploy(functions)
            for index in 0..<300 {
                try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "items/\(index)", value: 1)
            }
            await emulator.waitUntilIdle()
            #expect(try emulator.store.pendingEvents().isEmpty)
            #expect(try emulator.store.eventLog().count == 300)
        }
    }

    @Test("the event log keeps the newest finished events it is sized for, and every event not done", .timeLimit(.minutes(2)))
    func eventLogSize() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil, eventLogSize: 20)
        try await emulator.withRunning {
            let namespace = emulator.defaultDatabaseInstance
            let (opened, open) = AsyncStream<Void>.makeStream()
            var functions = FunctionRegistry()
            // Its one event stays not done until the test opens the gate: kept however old.
            functions["held"] = Database.ref("/held/{id}").onWrite { _, _ in
                for await _ in opened {}
            }
            functions["late"] = Database.ref("/late/{id}").onWrite { _, _ in }
            functions["failing"] = Database.ref("/failing/{id}").onWrite { _, _ in
                throw CallableError(.internal, "fails")
            }
            let bus = try await emulator.deploy(functions)
            try await emulator.database.set(namespace: namespace, path: "held/a", value: 1)
            for index in 0..<200 {
                try await emulator.database.set(namespace: namespace, path: "late/\(index)", value: .number(Double(index)))
            }
            try await emulator.database.set(namespace: namespace, path: "failing/x", value: 1)
            var log: [EventLogEntry] = []
            try await emulator.store.waitUntil {
                log = try emulator.store.eventLog(limit: 1000)
                return log.count <= 23 && log.last?.done == true
            }
            // Pruned every 2 events done (a tenth of 20): the held event, and at most 20 + 2 of the newest.
            #expect((21...23).contains(log.count), "\(log.count) events kept")
            #expect(log.first?.entry.event.subject?.hasSuffix("held/a") == true)
            #expect(log.first?.done == false)
            #expect(log.dropFirst().allSatisfy { $0.done })
            let paths = log.compactMap { $0.entry.event.subject }
            #expect(paths.last?.hasSuffix("failing/x") == true)
            #expect(paths.dropFirst().dropLast().allSatisfy { $0.contains("/late/") })
            open.finish()
            await emulator.waitUntilIdle()
            await emulator.dispatcher.waitUntilRecorded()
            // The deliveries and attempts of deleted events went with them.
            let orphans = try emulator.store.read { db in
                try Int.fetchOne(db, sql: """
                    SELECT (SELECT COUNT(*) FROM deliveries WHERE event_seq NOT IN (SELECT seq FROM outbox))
                        + (SELECT COUNT(*) FROM delivery_attempts WHERE event_seq NOT IN (SELECT seq FROM outbox))
                    """) ?? -1
            }
            #expect(orphans == 0)
            #expect(log.last?.deliveries.first?.status.hasPrefix("dead-letter") == true)
            // A dead letter of a pruned event can still be replayed.
            for index in 200..<260 { try await emulator.database.set(namespace: namespace, path: "late/\(index)", value: .number(Double(index))) }
            await emulator.waitUntilIdle()
            let letter = try #require(bus.deadLetters.first)
            #expect(try emulator.store.eventLog(limit: 1000).allSatisfy { $0.entry.event.id != letter.event.id })
            #expect(try await emulator.dispatcher.replayDeadLetter(id: letter.id))
            await emulator.waitUntilIdle()
            await emulator.dispatcher.waitUntilRecorded()
            // Stored again for its replay, whose attempt the event log records.
            let replayed = try #require(try emulator.store.eventLog(limit: 1).last)
            #expect(replayed.entry.event.id == letter.event.id && replayed.done)
            #expect(replayed.deliveries.map(\.status) == ["dead-letter:failed"])
        }
    }

    @Test("a redeploy right after an event was delivered does not deliver it again")
    func redeployAfterDelivery() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        try await emulator.withRunning {
            let calls = Mutex(0)
            var functions = FunctionRegistry()
            functions["count"] = Database.ref("/items/{id}").onWrite { _, _ in calls.withLock { $0 += 1 } }
            let bus = try await emulator.deploy(functions)
            try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "items/a", value: 1)
            // The bus is done with the event; its done mark may not be written yet.
            await bus.waitUntilIdle()
            try await emulator.deploy(functions)
            await emulator.waitUntilIdle()
            #expect(calls.withLock { $0 } == 1)
            #expect(try emulator.store.pendingEvents().isEmpty)
        }
    }

    @Test("a redeploy under a steady stream of writes returns, and every event is delivered once",
          .timeLimit(.minutes(1)))
    func redeployUnderLoad() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        try await emulator.withRunning {
            let delivered = Mutex<[String: Int]>([:])
            var functions = FunctionRegistry()
            functions["count"] = Database.ref("/items/{id}").onCreate { _, context in
                delivered.withLock { $0[context.params["id"]!, default: 0] += 1 }
            }
            try await emulator.deploy(functions)
            // Writes until the redeploy has returned: the deploy waits for the outcomes reported
            // before it and recovers the events committed before it, not for a quiet moment.
            let deployed = Atomic<Bool>(false)
            let (firstWrite, wrote) = AsyncStream.makeStream(of: Void.self)
            let writer = Task.detached {
                var count = 0
                while !deployed.load(ordering: .sequentiallyConsistent) {
                    try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "items/i\(count)", value: 1)
                    count += 1
                    wrote.yield()
                }
                return count
            }
            // The redeploy starts once the writes have.
            for await _ in firstWrite { break }
            try await emulator.deploy(functions)
            deployed.store(true, ordering: .sequentiallyConsistent)
            let written = try await writer.value
            await emulator.waitUntilIdle()
            #expect(written > 0)
            #expect(delivered.withLock { $0.count } == written)
            #expect(delivered.withLock { $0.values.allSatisfy { $0 == 1 } })
            #expect(try emulator.store.pendingEvents().isEmpty)
        }
    }

    @Test("dead letters outlive a redeploy: the new deployment lists them and replays them to its functions")
    func deadLettersAcrossARedeploy() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        try await emulator.withRunning {
            struct Refused: Error {}
            var failing = FunctionRegistry()
            failing["record"] = Database.ref("/items/{id}").onCreate { _, _ in throw Refused() }
            failing["other"] = Database.ref("/others/{id}").onCreate { _, _ in throw Refused() }
            try await emulator.deploy(failing)
            try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "items/a", value: 1)
            try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "others/b", value: 1)
            await emulator.waitUntilIdle()
            #expect(emulator.bus?.deadLetters.count == 2)

            let delivered = Mutex<[String]>([])
            var fixed = FunctionRegistry()
            fixed["record"] = Database.ref("/items/{id}").onCreate { _, context in
                delivered.withLock { $0.append(context.params["id"]!) }
            }
            let bus = try await emulator.deploy(fixed)
            // The letter of a function the new deployment lacks is gone with it.
            let letter = try #require(bus.deadLetters.first)
            #expect(bus.deadLetters.map(\.function) == ["record"])
            #expect(try await emulator.dispatcher.replayDeadLetter(id: letter.id))
            await emulator.waitUntilIdle()
            #expect(delivered.withLock { $0 } == ["a"])
            #expect(bus.deadLetters.isEmpty)
        }
    }

    @Test("a function that writes where it listens is stopped after the chain limit, and nothing crashes")
    func triggerLoop() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        try await emulator.withRunning {
            var functions = FunctionRegistry()
            functions["echo"] = Database.ref("/counter").onWrite { change, context in
                let next = (change.after.val().numberValue ?? 0) + 1
                try await context.database.ref("counter").set(.number(next))
            }
            let bus = try await emulator.deploy(functions)
            try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "counter", value: 0)
            await emulator.waitUntilIdle()
            let counter = try emulator.database.get(namespace: emulator.defaultDatabaseInstance, path: "counter")
            #expect(counter == .number(Double(DatabaseService.maximumChainDepth)))
            let letter = try #require(bus.deadLetters.first)
            #expect(letter.lastError?.contains("keeps writing where it") == true)
            #expect(bus.deadLetters.count == 1)
        }
    }

    @Test("a replayed dead letter is pending until its replay is done: a crash before then delivers it after the restart")
    func replayedDeadLetterSurvivesACrash() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        struct Refused: Error {}
        let runs = Mutex(0)
        let delivered = Mutex<[String]>([])
        var first = FunctionRegistry()
        // Fails its first run (dead-lettered: no retry); the replay's run never ends.
        first["flaky"] = Database.ref("/items/{id}").onCreate { _, _ in
            if runs.withLock({ $0 += 1; return $0 }) == 1 { throw Refused() }
            try await ManualClock().sleep(until: .distantFuture)
        }
        let emulator = try Emulator(project: "p", directory: directory)
        // This run "crashes": it is never shut down, and its last handler never returns.
        let crashed = Task { await emulator.run() }
        defer { crashed.cancel() }
        try await emulator.deploy(first)
        try await emulator.database.set(namespace: "p-default-rtdb", path: "items/a", value: 1)
        await emulator.waitUntilIdle()
        #expect(try emulator.store.pendingEvents().isEmpty, "a dead letter is done")
        let letter = try #require(emulator.bus?.deadLetters.first)
        #expect(try await emulator.dispatcher.replayDeadLetter(id: letter.id))
        #expect(try emulator.store.pendingEvents().map(\.event.subject) == ["refs/items/a"])

        var second = FunctionRegistry()
        second["flaky"] = Database.ref("/items/{id}").onCreate { _, context in
            delivered.withLock { $0.append(context.params["id"]!) }
        }
        let restarted = try Emulator(project: "p", directory: directory)
        try await restarted.withRunning {
            try await restarted.deploy(second)
            await restarted.waitUntilIdle()
            #expect(delivered.withLock { $0 } == ["a"])
            #expect(try restarted.store.pendingEvents().isEmpty)
        }
    }

    @Test("a dead letter replayed at once stays pending until its replay is done")
    func replayAtOnce() async throws {
        let emulator = try Emulator(project: "p", directory: nil)
        try await emulator.withRunning {
            let attempts = Mutex(0)
            let (opened, open) = AsyncStream<Void>.makeStream()
            var functions = FunctionRegistry()
            functions["record"] = Database.ref("/items/{id}").onCreate { _, _ in
                if attempts.withLock({ $0 += 1; return $0 }) == 1 { throw CallableError(.unavailable, "down") }
                for await _ in opened {}
            }
            let bus = try await emulator.deploy(functions)
            try await emulator.database.set(namespace: "p-default-rtdb", path: "items/a", value: 1)
            // Replayed the moment it is listed, before the give-up's done mark is written.
            var letter: DeadLetter?
            while letter == nil {
                letter = bus.deadLetters.first
                await Task.yield()
            }
            #expect(try await emulator.dispatcher.replayDeadLetter(id: try #require(letter).id))
            await emulator.dispatcher.waitUntilRecorded()
            // The replay's handler is held: the event must be pending, so that a restart publishes it.
            #expect(try emulator.store.pendingEvents().map(\.event.subject) == ["refs/items/a"])
            open.finish()
            await emulator.waitUntilIdle()
            #expect(try emulator.store.pendingEvents().isEmpty)
            #expect(attempts.withLock { $0 } == 2)
        }
    }

    @Test("dead letters outlive a restart: listed and replayed by the next run's functions")
    func deadLettersAfterRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let failing = Mutex(true)
        let handled = Mutex<[String]>([])
        var functions = FunctionRegistry()
        functions["record"] = Database.ref("/items/{id}").onCreate { _, context in
            if failing.withLock({ $0 }) { throw CallableError(.unavailable, "down") }
            handled.withLock { $0.append(context.params["id"]!) }
        }
        do {
            let first = try Emulator(project: "p", directory: directory)
            try await first.withRunning {
                let bus = try await first.deploy(functions)
                for key in ["a", "b"] { try await first.database.set(namespace: "p-default-rtdb", path: "items/\(key)", value: 1) }
                await first.waitUntilIdle()
                #expect(bus.deadLetters.count == 2)
            }
        }
        failing.withLock { $0 = false }
        let second = try Emulator(project: "p", directory: directory)
        try await second.withRunning {
            let bus = try await second.deploy(functions)
            let letters = bus.deadLetters
            #expect(letters.map { $0.event.subject } == ["refs/items/a", "refs/items/b"])
            #expect(letters.allSatisfy { $0.function == "record" && $0.reason == .failed && $0.attempts == 1 })
            #expect(letters.first?.lastError?.contains("down") == true)
            let letter = try #require(letters.first)
            #expect(try await second.dispatcher.replayDeadLetter(id: letter.id))
            await second.waitUntilIdle()
            #expect(handled.withLock { $0 } == ["a"])
            #expect(bus.deadLetters.map { $0.event.subject } == ["refs/items/b"])
            await second.shutdown()
            // A third run lists only what is still given up on.
            let third = try Emulator(project: "p", directory: directory)
            try await third.withRunning {
                let bus = try await third.deploy(functions)
                #expect(bus.deadLetters.map { $0.event.subject } == ["refs/items/b"])
            }
        }
    }

    @Test("committed events survive a crash and are delivered once functions run again; finished ones are not redelivered")
    func crashSafety() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (delivered, deliveredContinuation) = AsyncStream.makeStream(of: String.self)
        func functions(hangOn hung: String?) -> FunctionRegistry {
            var functions = FunctionRegistry()
            functions["record"] = Database.ref("/items/{id}").onCreate { _, context in
                let id = context.params["id"]!
                if id == hung {
                    // Never finishes: the process "dies" while this delivery is in flight.
                    try await ManualClock().sleep(until: .distantFuture)
                }
                deliveredContinuation.yield(id)
            }
            return functions
        }
        let namespace = "p-default-rtdb"

        // First run: three writes; the deployment delivers two and "dies" during the third.
        let first = try Emulator(project: "p", directory: directory)
        let crashed = Task { await first.run() }
        defer { crashed.cancel() }
        try await first.deploy(functions(hangOn: "c"))
        for (key, value) in [("a", 1), ("b", 2)] {
            try await first.database.set(namespace: namespace, path: "items/\(key)", value: .number(Double(value)))
        }
        // Idle: both delivered and marked done in the outbox.
        await first.waitUntilIdle()
        try await first.database.set(namespace: namespace, path: "items/c", value: 3)
        var iterator = delivered.makeAsyncIterator()
        var seenFirst = [await iterator.next(), await iterator.next()].compactMap { $0 }
        seenFirst.sort()
        #expect(seenFirst == ["a", "b"])
        let pendingAtCrash = try first.store.pendingEvents().map(\.event.subject)
        #expect(pendingAtCrash == ["refs/items/c"])
        // The crash: the first run is abandoned, never shut down; its handler hangs on.

        let second = try Emulator(project: "p", directory: directory)
        try await second.withRunning {
            #expect(try second.database.get(namespace: namespace, path: "items") == ["a": 1, "b": 2, "c": 3])
            try await second.deploy(functions(hangOn: nil))
            await second.waitUntilIdle()
            #expect(await iterator.next() == "c")
            #expect(try second.store.pendingEvents().isEmpty)
            let log = try second.store.eventLog()
            #expect(log.count == 3)
            #expect(log.allSatisfy { $0.done })
        }
    }

    @Test("the event log counts every attempt across a restart, and the recovery that sent it again")
    func attemptsAcrossRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (attempts, attemptContinuation) = AsyncStream.makeStream(of: Int.self)
        func functions(failing: Bool) -> FunctionRegistry {
            var functions = FunctionRegistry()
            functions["flaky"] = Database.ref("/items/{id}").options(.retry(true)).onCreate { _, context in
                attemptContinuation.yield(context.attempt)
                if failing { throw CancellationError() }
            }
            return functions
        }
        let first = try Emulator(project: "p", directory: directory)
        try await first.withRunning {
            try await first.deploy(functions(failing: true))
            try await first.database.set(namespace: "p-default-rtdb", path: "items/a", value: 1)
            var iterator = attempts.makeAsyncIterator()
            #expect(await iterator.next() == 1)
            // The first attempt failed and a retry is due in ten seconds; the process "dies" first.
            await first.bus?.shutdown()

            let second = try Emulator(project: "p", directory: directory)
            try await second.withRunning {
                try await second.deploy(functions(failing: false))
                await second.waitUntilIdle()
                #expect(await iterator.next() == 1, "a new bus counts from 1")
                let log = try second.store.eventLog()
                #expect(log.map(\.done) == [true])
                #expect(log.first?.deliveries.map(\.attempts) == [2])
                #expect(log.first?.deliveries.map(\.status) == ["succeeded"])
                #expect(log.first?.recoveries == 1)
            }
        }
    }
}
