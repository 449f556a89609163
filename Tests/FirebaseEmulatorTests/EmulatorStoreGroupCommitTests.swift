import FirebaseEmulator
import Foundation
import GRDB
import Synchronization
import Testing

@Suite("Emulator store: group commit")
struct EmulatorStoreGroupCommitTests {
    struct Refused: Error {}

    /// What the writes did, in order.
    final class Log: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A store with one table `t (v TEXT PRIMARY KEY)`.
    static func store() async throws -> EmulatorStore {
        let store = try EmulatorStore(directory: nil, schemas: [])
        _ = try await store.write { try $0.db.execute(sql: "CREATE TABLE t (v TEXT PRIMARY KEY)") }
        return store
    }

    static func rows(_ store: EmulatorStore) throws -> [String] {
        try store.read { try String.fetchAll($0, sql: "SELECT v FROM t ORDER BY v") }
    }

    /// Queues writes `a`, `b` and `c` (each inserts its name and logs its hooks; `b` ends with
    /// `middle`) while a first write holds its transaction open, so that the three go together in
    /// the next group; returns their tasks once that group is done.
    static func groupOfThree(
        _ store: EmulatorStore, log: Log, middle: @escaping @Sendable (inout StoreTransaction) throws -> Void
    ) async throws -> [Task<(String, [OutboxEntry]), any Error>] {
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let first = Task {
            try await store.writeInGroup({ transaction in
                enteredContinuation.yield()
                release.wait()
                try transaction.db.execute(sql: "INSERT INTO t VALUES ('first')")
            })
        }
        for await _ in entered { break }
        var queued: [Task<(String, [OutboxEntry]), any Error>] = []
        for (index, name) in ["a", "b", "c"].enumerated() {
            queued.append(Task {
                try await store.writeInGroup({ transaction in
                    try transaction.db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [name])
                    log.add("\(name) ran")
                    transaction.afterCommit({ log.add("commit \(name)") }, orRollback: { log.add("undo \(name)") })
                    if name == "b" { try middle(&transaction) }
                    return name
                })
            })
            while store.queuedWriteCount < index + 1 { await Task.yield() }
        }
        release.signal()
        _ = try await first.value
        for task in queued { _ = await task.result }
        return queued
    }

    @Test("writes queued while a group commits share the next transaction; one that throws is undone alone")
    func sharedCommit() async throws {
        let store = try await Self.store()
        let log = Log()
        let queued = try await Self.groupOfThree(store, log: log) { _ in throw Refused() }
        #expect(try await queued[0].value.0 == "a")
        await #expect(throws: Refused.self) { try await queued[1].value }
        #expect(try await queued[2].value.0 == "c")
        // One transaction: every body ran before any commit hook; b was undone at once.
        #expect(log.all == ["a ran", "b ran", "undo b", "c ran", "commit a", "commit c"])
        #expect(try Self.rows(store) == ["a", "c", "first"])
    }

    @Test("a transaction SQLite rolls back by itself mid-group (as on a full disk) fails every write of the group, stores none and runs no later one")
    func transactionLostMidGroup() async throws {
        let store = try await Self.store()
        let log = Log()
        // What SQLite does to the transaction on SQLITE_FULL or an I/O error.
        let queued = try await Self.groupOfThree(store, log: log) { transaction in
            try transaction.db.execute(sql: "ROLLBACK")
        }
        for task in queued {
            await #expect(throws: DatabaseError.self) { try await task.value }
        }
        // c never ran: outside the transaction its insert would have committed on its own.
        #expect(log.all == ["a ran", "b ran", "undo b", "undo a"])
        #expect(try Self.rows(store) == ["first"])
        // The store goes on: the next write commits.
        _ = try await store.writeInGroup({ try $0.db.execute(sql: "INSERT INTO t VALUES ('after')") })
        #expect(try Self.rows(store) == ["after", "first"])
    }

    @Test("a write that arrives alone commits at once, and its emitted events come back with its value")
    func alone() async throws {
        let store = try await Self.store()
        let (value, emitted) = try await store.writeInGroup({ transaction in
            try transaction.db.execute(sql: "INSERT INTO t VALUES ('only')")
            return 42
        })
        #expect(value == 42)
        #expect(emitted.isEmpty)
        #expect(try Self.rows(store) == ["only"])
        #expect(store.queuedWriteCount == 0)
    }

    @Test("many concurrent writers: every write lands once, a failing one alone is missing")
    func concurrentWriters() async throws {
        let store = try await Self.store()
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        _ = try await store.writeInGroup({ transaction in
                            try transaction.db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["v\(index)"])
                            if index % 50 == 7 { throw Refused() }
                        })
                        return true
                    } catch is Refused {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 196)
        let expected = (0..<200).filter { $0 % 50 != 7 }.map { "v\($0)" }.sorted()
        #expect(try Self.rows(store) == expected)
    }
}
