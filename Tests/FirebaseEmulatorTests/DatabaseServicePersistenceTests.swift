import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
@testable import FirebaseEmulator
import Foundation
import Testing

@Suite("Database service: persistence")
struct DatabaseServicePersistenceTests {
    let directory = DatabaseServiceHarness.temporaryDirectory()
    let ns = DatabaseServiceHarness.namespace

    @Test("every kind of write survives reopening the store")
    func reopen() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let pushed: String
        do {
            let harness = try DatabaseServiceHarness(directory: directory)
            let service = harness.service
            try await service.set(namespace: ns, path: "/a", value: ["x": 1, "list": [1, 2], "t": [".sv": "timestamp"]])
            try await service.update(namespace: ns, path: "/a", values: ["x": nil, "y/z": true])
            pushed = try await #require(try service.push(namespace: ns, path: "/msgs", value: "hello").name)
            try await service.set(namespace: ns, path: "/gone", value: 1)
            try await service.delete(namespace: ns, path: "/gone")
            try await service.set(namespace: "second-db", path: "/k", value: "v")
        }
        let reopened = try DatabaseServiceHarness(directory: directory, clock: ManualClock(now: Date()))
        #expect(try reopened.service.get(namespace: ns, path: "/") == [
            "a": ["list": [1, 2], "t": 1_700_000_000_000, "y": ["z": true]],
            "msgs": [.init(stringLiteral: pushed): "hello"],
        ])
        #expect(try reopened.service.get(namespace: "second-db", path: "/k") == "v")
        #expect(reopened.service.namespaces() == [ns, "second-db"].sorted())
    }

    @Test("after more writes than the snapshot interval, snapshot and log rebuild the same tree")
    func snapshots() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var expected: [String: JSONValue] = [:]
        do {
            let harness = try DatabaseServiceHarness(directory: directory, snapshotInterval: 1000)
            for index in 0..<2_345 {
                let key = "k\(index % 700)"
                try await harness.service.set(namespace: ns, path: "/items/\(key)", value: .number(Double(index)))
                expected[key] = .number(Double(index))
            }
            try await harness.service.update(namespace: ns, path: "/items", values: ["k1": nil, "k2": "two"])
            expected["k1"] = nil
            expected["k2"] = "two"
            #expect(try harness.service.loggedWriteCount(namespace: ns) == 346)
        }
        let reopened = try DatabaseServiceHarness(directory: directory)
        #expect(try reopened.service.get(namespace: ns, path: "/items") == .object(expected))
        // Writing on goes on from the recovered sequence.
        try await reopened.service.set(namespace: ns, path: "/items/k3", value: "three")
        let again = try DatabaseServiceHarness(directory: directory)
        #expect(try again.service.get(namespace: ns, path: "/items/k3") == "three")
    }

    @Test("a snapshot waits until the log holds as many bytes as the last snapshot, and reopening rebuilds the same tree")
    func snapshotsFollowTheLogSize() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = JSONValue.string(String(repeating: "x", count: 10_000))
        var expected: JSONValue = .null
        do {
            let harness = try DatabaseServiceHarness(directory: directory, snapshotInterval: 1)
            // The first write snapshots: there is no snapshot yet to weigh the log against.
            try await harness.service.set(namespace: ns, path: "/big", value: big)
            #expect(try harness.service.loggedWriteCount(namespace: ns) == 0)
            // Small writes are logged, not snapshotted: the log is far smaller than the 10 kB tree.
            for index in 0..<5 {
                try await harness.service.set(namespace: ns, path: "/small/s\(index)", value: .number(Double(index)))
            }
            #expect(try harness.service.loggedWriteCount(namespace: ns) == 5)
            // A large write brings the log to the snapshot's size: the write after it snapshots.
            try await harness.service.set(namespace: ns, path: "/other", value: big)
            #expect(try harness.service.loggedWriteCount(namespace: ns) == 6)
            try await harness.service.delete(namespace: ns, path: "/small/s0")
            #expect(try harness.service.loggedWriteCount(namespace: ns) == 0)
            try await harness.service.set(namespace: ns, path: "/small/s9", value: "last")
            #expect(try harness.service.loggedWriteCount(namespace: ns) == 1)
            expected = try harness.service.get(namespace: ns, path: "/")
        }
        let reopened = try DatabaseServiceHarness(directory: directory, snapshotInterval: 1)
        #expect(try reopened.service.get(namespace: ns, path: "/") == expected)
        // The reopened service weighs the log against the stored snapshot: a small write is logged.
        try await reopened.service.set(namespace: ns, path: "/small/s8", value: 8)
        #expect(try reopened.service.loggedWriteCount(namespace: ns) == 2)
    }

    @Test("an abandoned service's committed writes and events are there after a crash-like reopen")
    func crash() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var abandoned: [DatabaseServiceHarness] = []
        let first = try DatabaseServiceHarness(
            directory: directory, snapshotInterval: 3, triggers: [Database.ref("/scores/{id}").onWrite(noHandler)])
        abandoned.append(first)
        for index in 0..<5 {
            try await first.service.set(namespace: ns, path: "/scores/s\(index)", value: ["points": .number(Double(index))])
        }
        // No shutdown, no close: a second process opens the same directory.
        let second = try DatabaseServiceHarness(directory: directory)
        #expect(try second.service.get(namespace: ns, path: "/scores/s4") == ["points": 4])
        #expect(try second.service.get(namespace: ns, path: "/scores/s0") == ["points": 0])
        let pending = try second.store.pendingEvents()
        #expect(pending.count == 5)
        #expect(pending.map { $0.event.subject } == (0..<5).map { "refs/scores/s\($0)" })
        #expect(abandoned.count == 1)
    }

    @Test("an import is stored as a snapshot and survives reopening")
    func importPersists() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let harness = try DatabaseServiceHarness(directory: directory)
            try await harness.service.set(namespace: ns, path: "/old", value: 1)
            try await harness.service.importTree(namespace: ns, value: ["new": ["a": 1]])
            try await harness.service.set(namespace: ns, path: "/new/b", value: 2)
        }
        let reopened = try DatabaseServiceHarness(directory: directory)
        #expect(try reopened.service.export(namespace: ns) == ["new": ["a": 1, "b": 2]])
    }
}
