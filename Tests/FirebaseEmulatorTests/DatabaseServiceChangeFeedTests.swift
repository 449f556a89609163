import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("Database service: change feed")
struct DatabaseServiceChangeFeedTests {
    let ns = DatabaseServiceHarness.namespace

    /// Takes the next `count` events of a feed.
    func next(_ count: Int, from iterator: inout AsyncStream<DatabaseChangeEvent>.Iterator) async
        -> [DatabaseChangeEvent]
    {
        var events: [DatabaseChangeEvent] = []
        for _ in 0..<count {
            guard let event = await iterator.next() else { break }
            events.append(event)
        }
        return events
    }

    @Test("the first event is a put at / with the current value")
    func initialPut() async throws {
        let harness = try DatabaseServiceHarness()
        try await harness.service.set(namespace: ns, path: "/rooms/r1", value: ["name": "Lobby", "list": ["a"]])
        var iterator = try harness.service.changes(namespace: ns, path: "/rooms/r1").makeAsyncIterator()
        let initial = DatabaseChangeEvent(event: .put, path: "/", data: ["name": "Lobby", "list": ["a"]])
        #expect(await next(1, from: &iterator) == [initial])
        var empty = try harness.service.changes(namespace: ns, path: "/nothing").makeAsyncIterator()
        #expect(await next(1, from: &empty) == [.init(event: .put, path: "/", data: nil)])
    }

    @Test("writes sharing one commit reach a listener below them each with the value it wrote, in order")
    func groupedWritesAboveAListener() async throws {
        let harness = try DatabaseServiceHarness()
        let service = harness.service
        let ns = self.ns
        var iterator = try service.changes(namespace: ns, path: "/a/x").makeAsyncIterator()
        #expect(await next(1, from: &iterator) == [.init(event: .put, path: "/", data: nil)])
        // A write of the store holds the writer until both database writes are queued behind it,
        // so that they go in one transaction.
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await harness.store.writeInGroup({ _ in
                enteredContinuation.yield()
                release.wait()
            })
        }
        for await _ in entered { break }
        var writes: [Task<DatabaseWriteResult, any Error>] = []
        for (index, value) in [1, 2, 3].enumerated() {
            writes.append(Task {
                try await service.write(DatabaseWrite(.set(["x": .number(Double(value))]), namespace: ns, path: "/a"))
            })
            while harness.store.queuedWriteCount < index + 1 { await Task.yield() }
        }
        release.signal()
        _ = try await holder.value
        for write in writes { _ = try await write.value }
        #expect(await next(3, from: &iterator) == [
            .init(event: .put, path: "/", data: 1), .init(event: .put, path: "/", data: 2),
            .init(event: .put, path: "/", data: 3),
        ])
    }

    @Test("writes at, below and above the location arrive as put and patch with relative paths, in order")
    func relativePaths() async throws {
        let harness = try DatabaseServiceHarness()
        let service = harness.service
        var iterator = try service.changes(namespace: ns, path: "/rooms").makeAsyncIterator()
        try await service.set(namespace: ns, path: "/rooms/r1/name", value: "Lobby")
        try await service.update(namespace: ns, path: "/rooms/r1", values: ["topic": "hi", "meta/size": 3])
        try await service.set(namespace: ns, path: "/elsewhere", value: 1)
        try await service.delete(namespace: ns, path: "/rooms/r1/topic")
        let pushed = try await #require(try service.push(namespace: ns, path: "/rooms", value: ["name": "New"]).name)
        try await service.update(namespace: ns, path: "/", values: ["rooms/r2/name": "Two", "other": 1])
        try await service.set(namespace: ns, path: "/", value: ["rooms": ["only": true]])
        try await service.update(namespace: ns, path: "/", values: ["rooms": ["only": true], "other": 2])
        try await service.set(namespace: ns, path: "/rooms/last", value: 1)
        let events = await next(8, from: &iterator)
        #expect(events == [
            .init(event: .put, path: "/", data: nil),
            .init(event: .put, path: "/r1/name", data: "Lobby"),
            .init(event: .patch, path: "/r1", data: ["topic": "hi", "meta/size": 3]),
            .init(event: .put, path: "/r1/topic", data: nil),
            .init(event: .put, path: "/\(pushed)", data: ["name": "New"]),
            .init(event: .patch, path: "/", data: ["r2/name": "Two"]),
            .init(event: .put, path: "/", data: ["only": true]),
            .init(event: .put, path: "/last", data: 1),
        ])
    }

    @Test("unrelated writes and other namespaces are not seen")
    func unrelated() async throws {
        let harness = try DatabaseServiceHarness()
        let service = harness.service
        var iterator = try service.changes(namespace: ns, path: "/a/b").makeAsyncIterator()
        try await service.set(namespace: ns, path: "/a/c", value: 1)
        try await service.set(namespace: ns, path: "/x", value: 1)
        try await service.set(namespace: "other-db", path: "/a/b", value: 1)
        try await service.update(namespace: ns, path: "/a", values: ["c": 2, "d": 3])
        try await service.set(namespace: ns, path: "/a/b", value: "mine")
        #expect(await next(2, from: &iterator) == [
            .init(event: .put, path: "/", data: nil), .init(event: .put, path: "/", data: "mine"),
        ])
    }

    @Test("the feed ends on shutdown and cleans up when the consumer stops")
    func termination() async throws {
        let harness = try DatabaseServiceHarness()
        do {
            let stream = try harness.service.changes(namespace: ns, path: "/a")
            #expect(harness.service.listenerCount == 1)
            _ = stream
        }
        #expect(harness.service.listenerCount == 0)
        var iterator = try harness.service.changes(namespace: ns, path: "/a").makeAsyncIterator()
        _ = await next(1, from: &iterator)
        harness.service.shutdown()
        #expect(await iterator.next() == nil)
        #expect(harness.service.listenerCount == 0)
        var late = try harness.service.changes(namespace: ns, path: "/a").makeAsyncIterator()
        #expect(await late.next() == nil)
    }

    @Test("an import puts the new value to feeds")
    func importFeeds() async throws {
        let harness = try DatabaseServiceHarness()
        var iterator = try harness.service.changes(namespace: ns, path: "/a").makeAsyncIterator()
        try await harness.service.importTree(namespace: ns, value: ["a": ["b": 1]])
        #expect(await next(2, from: &iterator) == [
            .init(event: .put, path: "/", data: nil), .init(event: .put, path: "/", data: ["b": 1]),
        ])
    }
}

@Suite("Database service: concurrent writers")
struct DatabaseServiceConcurrencyTests {
    @Test("concurrent writes sharing commits, as the REST API makes them, all land; a stale if-match alone is refused; a feed sees each once")
    func groupedWrites() async throws {
        let harness = try DatabaseServiceHarness(triggers: [Database.ref("/n/{id}").onWrite(noHandler)])
        let service = harness.service
        let ns = harness.ns
        let feed = try service.changes(namespace: ns, path: "/n")
        let refused = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        try await service.write(DatabaseWrite(
                            .set(.number(Double(index))), namespace: ns, path: "/n/k\(index)",
                            ifMatch: index == 99 ? "stale-etag" : nil))
                        return 0
                    } catch let error as ServiceError where DatabasePreconditionFailure(error) != nil {
                        return 1
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(refused == 1)
        var seen: Set<String> = []
        for await event in feed.prefix(200) where event.path != "/" {
            seen.insert(event.path)
        }
        #expect(seen.count == 199)
        #expect(seen.contains("/k99") == false)
        #expect(try service.get(namespace: ns, path: "/n").objectValue?.count == 199)
        #expect(harness.recorder.take().count == 199)
    }

    @Test("concurrent writes all land, and a feed sees each of them once")
    func concurrentWrites() async throws {
        let harness = try DatabaseServiceHarness(
            snapshotInterval: 7, triggers: [Database.ref("/n/{id}").onWrite(noHandler)])
        let service = harness.service
        let ns = harness.ns
        let feed = try service.changes(namespace: ns, path: "/n")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for index in 0..<50 { try await service.set(namespace: ns, path: "/n/w\(writer)-\(index)", value: 1) }
                }
            }
            try await group.waitForAll()
        }
        var seen: Set<String> = []
        for await event in feed.prefix(201) where event.path != "/" {
            seen.insert(event.path)
        }
        #expect(seen.count == 200)
        #expect(try service.get(namespace: ns, path: "/n").objectValue?.count == 200)
        #expect(harness.recorder.take().count == 200)
    }
}
