import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("Database service: trigger events")
struct DatabaseServiceTriggerTests {
    let ns = DatabaseServiceHarness.namespace

    func harness(_ functions: CloudFunction...) throws -> DatabaseServiceHarness {
        try DatabaseServiceHarness(triggers: functions)
    }

    func summary(_ events: [CloudEvent]) -> [String] {
        events.map { "\($0.type.split(separator: ".").last ?? "") \($0[attribute: "ref"] ?? "?")" }
    }

    @Test("a set at the trigger path emits one written event with every attribute a worker needs")
    func setAtTriggerPath() async throws {
        let function = Database.ref("/scores/{id}").onWrite(noHandler)
        let harness = try harness(function)
        try await harness.service.set(namespace: ns, path: "/scores/a", value: ["points": 10, "tags": ["x", "y"]])
        let events = harness.recorder.take()
        try #require(events.count == 1)
        let event = events[0]
        #expect(event.type == FirebaseEventType.databaseWritten)
        #expect(event.source == "//firebasedatabase.googleapis.com/projects/_/locations/us-central1/instances/\(ns)")
        #expect(event.subject == "refs/scores/a")
        #expect(event[attribute: "instance"] == ns)
        #expect(event[attribute: "ref"] == "scores/a")
        #expect(event[attribute: "firebasedatabasehost"] == "firebaseio.com")
        #expect(event[attribute: "location"] == "us-central1")
        #expect(event[attribute: "authtype"] == "admin")
        #expect(event[attribute: "authid"] == nil)
        #expect(event.time == harness.clock.now)
        #expect(event.payload == ["data": nil, "delta": ["points": 10, "tags": ["x", "y"]]])
        #expect(event.databaseChange.after.val() == ["points": 10, "tags": ["x", "y"]])
        #expect(function.eventTrigger?.match(event) == ["id": "a"])
    }

    @Test("applying delta to data gives the new value, at the trigger path")
    func deltaApplies() async throws {
        let harness = try harness(Database.ref("/scores/{id}").onWrite(noHandler))
        try await harness.service.set(namespace: ns, path: "/scores/a", value: ["points": 1, "name": "Ada", "x": ["y": 1]])
        _ = harness.recorder.take()
        try await harness.service.update(namespace: ns, path: "/scores/a", values: ["points": 2, "x/y": nil, "z": [1, 2]])
        let event = try #require(harness.recorder.take().first)
        #expect(event.payload["data"] == ["points": 1, "name": "Ada", "x": ["y": 1]])
        #expect(event.payload["delta"] == ["points": 2, "x": nil, "z": [1, 2]])
        let change = event.databaseChange
        #expect(change.before.val() == ["points": 1, "name": "Ada", "x": ["y": 1]])
        #expect(change.after.val() == (try harness.service.get(namespace: ns, path: "/scores/a")))
        #expect(change.after.val() == ["points": 2, "name": "Ada", "z": [1, 2]])
    }

    @Test("a set above a wildcard trigger emits one event per changed child")
    func setAboveWildcard() async throws {
        let harness = try harness(Database.ref("/scores/{id}").onWrite(noHandler))
        try await harness.service.set(namespace: ns, path: "/scores", value: ["a": 1, "b": 2, "c": 3])
        #expect(summary(harness.recorder.take()) == ["written scores/a", "written scores/b", "written scores/c"])
        try await harness.service.set(namespace: ns, path: "/", value: ["scores": ["a": 1, "b": 20, "d": 4]])
        let events = harness.recorder.take()
        #expect(summary(events) == ["written scores/b", "written scores/c", "written scores/d"])
        #expect(events.map(\.databaseChange.after).map { $0.val() } == [20, nil, 4])
        #expect(events.map(\.databaseChange.before).map { $0.val() } == [2, 3, nil])
    }

    @Test("a multi-path update emits an event for each touched child only")
    func multiPathUpdate() async throws {
        let harness = try harness(Database.ref("/scores/{id}").onWrite(noHandler))
        try await harness.service.set(namespace: ns, path: "/scores", value: ["a": ["points": 1], "b": ["points": 2], "c": 3])
        _ = harness.recorder.take()
        try await harness.service.update(
            namespace: ns, path: "/",
            values: ["scores/a/points": 5, "scores/b": ["points": 2, "bonus": true], "scores/c": 3, "other/x": 1])
        let events = harness.recorder.take()
        #expect(summary(events) == ["written scores/a", "written scores/b"])
        #expect(events[0].payload == ["data": ["points": 1], "delta": ["points": 5]])
        #expect(events[1].payload == ["data": ["points": 2], "delta": ["bonus": true]])
    }

    @Test("a trigger above the write reports the whole node it watches")
    func triggerAboveWrite() async throws {
        let harness = try harness(Database.ref("/scores").onWrite(noHandler))
        try await harness.service.set(namespace: ns, path: "/scores/a", value: 1)
        try await harness.service.set(namespace: ns, path: "/scores/b/deep", value: 2)
        let events = harness.recorder.take()
        #expect(summary(events) == ["written scores", "written scores"])
        #expect(events[1].payload == ["data": ["a": 1], "delta": ["b": ["deep": 2]]])
        #expect(events[1].databaseChange.after.val() == ["a": 1, "b": ["deep": 2]])
    }

    @Test("created, updated and deleted fire on the right writes, each with written")
    func eventTypes() async throws {
        let harness = try harness(
            Database.ref("/scores/{id}").onWrite(noHandler), Database.ref("/scores/{id}").onCreate(noSnapshotHandler),
            Database.ref("/scores/{id}").onUpdate(noHandler), Database.ref("/scores/{id}").onDelete(noSnapshotHandler))
        try await harness.service.set(namespace: ns, path: "/scores/a", value: 1)
        #expect(summary(harness.recorder.take()) == ["written scores/a", "created scores/a"])
        try await harness.service.set(namespace: ns, path: "/scores/a", value: 2)
        #expect(summary(harness.recorder.take()) == ["written scores/a", "updated scores/a"])
        try await harness.service.delete(namespace: ns, path: "/scores/a")
        let deleted = harness.recorder.take()
        #expect(summary(deleted) == ["written scores/a", "deleted scores/a"])
        #expect(deleted[1].payload == ["data": 2, "delta": nil])
        #expect(deleted[1].databaseChange.after.exists() == false)
    }

    @Test("a write that changes nothing emits nothing")
    func noChange() async throws {
        let harness = try harness(Database.ref("/scores/{id}").onWrite(noHandler))
        try await harness.service.set(namespace: ns, path: "/scores/a", value: ["p": 1])
        _ = harness.recorder.take()
        try await harness.service.set(namespace: ns, path: "/scores/a", value: ["p": 1])
        try await harness.service.update(namespace: ns, path: "/scores", values: ["a/p": 1])
        try await harness.service.delete(namespace: ns, path: "/scores/zzz")
        try await harness.service.set(namespace: ns, path: "/unwatched", value: 1)
        #expect(harness.recorder.take().isEmpty)
    }

    @Test("triggers with the same concrete path get one event per type")
    func deduplicated() async throws {
        let harness = try harness(
            Database.ref("/scores/{id}").onWrite(noHandler), Database.ref("/scores/{other}").onWrite(noHandler),
            Database.ref("/scores/a").onWrite(noHandler), Database.ref("scores/*").onCreate(noSnapshotHandler))
        try await harness.service.set(namespace: ns, path: "/scores/a", value: 1)
        #expect(summary(harness.recorder.take()) == ["written scores/a", "created scores/a"])
    }

    @Test("instance filters select the namespace")
    func instanceFilters() async throws {
        let harness = try harness(
            Database.instance("other-db").ref("/scores/{id}").onCreate(noSnapshotHandler),
            Database.ref("/any/{id}").onCreate(noSnapshotHandler))
        try await harness.service.set(namespace: ns, path: "/scores/a", value: 1)
        #expect(harness.recorder.take().isEmpty)
        try await harness.service.set(namespace: "other-db", path: "/scores/a", value: 1)
        try await harness.service.set(namespace: "third-db", path: "/any/a", value: 1)
        let events = harness.recorder.take()
        #expect(events.map { $0[attribute: "instance"] } == ["other-db", "third-db"])
        #expect(events[0].source.hasSuffix("/instances/other-db"))
    }

    @Test("disableTriggers writes emit nothing")
    func disabled() async throws {
        let harness = try harness(Database.ref("/scores/{id}").onWrite(noHandler))
        try await harness.service.write(DatabaseWrite(.set(1), namespace: ns, path: "/scores/a", disableTriggers: true))
        try await harness.service.write(DatabaseWrite(.update(["b": 2]),
            namespace: ns, path: "/scores", disableTriggers: true))
        try await harness.service.write(DatabaseWrite(.push(3), namespace: ns, path: "/scores", disableTriggers: true))
        try await harness.service.write(DatabaseWrite(.delete, namespace: ns, path: "/scores/a", disableTriggers: true))
        #expect(harness.recorder.take().isEmpty)
        #expect(try harness.store.pendingEvents().isEmpty)
    }

    @Test("the writer's identity becomes authtype and authid")
    func auth() async throws {
        let harness = try harness(Database.ref("/posts/{id}").onWrite(noHandler))
        try await harness.service.push(namespace: ns, path: "/posts", value: "a", auth: .user(uid: "u1"))
        try await harness.service.push(namespace: ns, path: "/posts", value: "b", auth: .unauthenticated)
        let events = harness.recorder.take()
        #expect(events.map { $0[attribute: "authtype"] } == ["app_user", "unauthenticated"])
        #expect(events.map { $0[attribute: "authid"] } == ["u1", nil])
    }

    @Test("one write emits at most 1000 events and still succeeds")
    func cap() async throws {
        let harness = try harness(Database.ref("/items/{id}").onWrite(noHandler))
        let children = Dictionary(uniqueKeysWithValues: (0..<1_005).map { ("i\($0)", JSONValue.number(1)) })
        try await harness.service.set(namespace: ns, path: "/items", value: .object(children))
        #expect(harness.recorder.take().count == 1000)
        #expect(try harness.store.pendingEvents(limit: 2000).count == 1000)
        #expect(try harness.service.get(namespace: ns, path: "/items", queryParameters: ["shallow": "true"])
            .objectValue?.count == 1_005)
    }

    @Test("events are in the outbox with the write, and triggers can be replaced")
    func outboxAndReplace() async throws {
        let harness = try harness(Database.ref("/a/{id}").onWrite(noHandler))
        try await harness.service.set(namespace: ns, path: "/a/x", value: 1)
        harness.service.setTriggers([Database.ref("/b/{id}").onWrite(noHandler).eventTrigger!])
        try await harness.service.set(namespace: ns, path: "/a/y", value: 1)
        try await harness.service.set(namespace: ns, path: "/b/y", value: 1)
        #expect(try harness.store.pendingEvents().map(\.event.subject) == ["refs/a/x", "refs/b/y"])
    }

    @Test("a ** pattern matches the written path and its ancestors below the literal prefix")
    func multiSegment() async throws {
        let harness = try harness(Database.ref("/logs/{rest=**}").onWrite(noHandler))
        try await harness.service.set(namespace: ns, path: "/logs/2024/jan", value: ["n": 1])
        #expect(summary(harness.recorder.take()) == [
            "written logs", "written logs/2024", "written logs/2024/jan", "written logs/2024/jan/n",
        ])
    }
}
