import CloudFunctions
import Synchronization
import Testing

/// `runTransaction`'s rules, against a Firestore stand-in that checks what it is sent.
@Suite("Firestore: transactions")
struct FirestoreTransactionTests {
    /// A Firestore that answers ABORTED to the first `aborts` commits, as the service does when
    /// another write won, and to the first `readAborts` reads in a transaction, as the
    /// emulator does when a lock is not had in time; it records every call.
    final class Contended: FirestoreClient {
        let calls = Mutex<[String]>([])
        let aborts: Int
        let readAborts: Int
        private let committed = Mutex(0)
        private let read = Mutex(0)
        init(aborts: Int, readAborts: Int = 0) {
            self.aborts = aborts
            self.readAborts = readAborts
        }

        func get(_ path: String, transaction: String?) async throws -> DocumentSnapshot {
            calls.withLock { $0.append("get \(path) in \(transaction ?? "none")") }
            if read.withLock({ $0 += 1; return $0 }) <= readAborts {
                throw FirestoreError(code: 409, status: "ABORTED", message: "Transaction lock timeout.")
            }
            return DocumentSnapshot(path: path, fields: ["n": 1])
        }
        func query(_ query: FirestoreQuery) async throws -> [DocumentSnapshot] { [] }
        func commit(_ writes: [FirestoreWrite], transaction: String?) async throws {
            calls.withLock { $0.append("commit \(writes.map(\.path)) in \(transaction ?? "none")") }
            let attempt = committed.withLock { $0 += 1; return $0 }
            if attempt <= aborts { throw FirestoreError(code: 409, status: "ABORTED", message: "contention") }
        }
        func beginTransaction() async throws -> String {
            let id = "t\(calls.withLock { calls in calls.filter { $0.hasPrefix("begin") }.count + 1 })"
            calls.withLock { $0.append("begin \(id)") }
            return id
        }
        func rollback(_ transaction: String) async throws { calls.withLock { $0.append("rollback \(transaction)") } }
    }

    @Test("an ABORTED commit runs the body again in a new transaction, its reads and writes with it")
    func retriedOnContention() async throws {
        let firestore = Contended(aborts: 2)
        let runs = Mutex(0)
        let result = try await firestore.runTransaction { transaction in
            runs.withLock { $0 += 1 }
            let n = try await transaction.get("counters/c")["n"]?.integerValue ?? 0
            transaction.update("counters/c", ["n": .integer(n + 1)])
            return n + 1
        }
        #expect(result == 2)
        #expect(runs.withLock { $0 } == 3)
        #expect(firestore.calls.withLock { $0 } == [
            "begin t1", "get counters/c in t1", "commit [\"counters/c\"] in t1",
            "begin t2", "get counters/c in t2", "commit [\"counters/c\"] in t2",
            "begin t3", "get counters/c in t3", "commit [\"counters/c\"] in t3",
        ])
    }

    @Test("a read ABORTED in a transaction rolls it back and runs the body again; other errors are not retried")
    func readAbortRetried() async throws {
        let firestore = Contended(aborts: 0, readAborts: 1)
        let result = try await firestore.runTransaction { transaction in
            let n = try await transaction.get("counters/c")["n"]?.integerValue ?? 0
            transaction.update("counters/c", ["n": .integer(n + 1)])
            return n + 1
        }
        #expect(result == 2)
        #expect(firestore.calls.withLock { $0 } == [
            "begin t1", "get counters/c in t1", "rollback t1",
            "begin t2", "get counters/c in t2", "commit [\"counters/c\"] in t2",
        ])
    }

    @Test("it gives up after maxAttempts, with the service's error; a body that throws is rolled back, never committed")
    func givesUpAndRollsBack() async throws {
        let contended = Contended(aborts: 10)
        let error = await #expect(throws: FirestoreError.self) {
            try await contended.runTransaction(maxAttempts: 2) { transaction in transaction.delete("a/b") }
        }
        #expect(error?.status == "ABORTED")
        #expect(contended.calls.withLock { $0 }.filter { $0.hasPrefix("commit") }.count == 2)

        struct Refused: Error {}
        let refused = Contended(aborts: 0)
        await #expect(throws: Refused.self) {
            try await refused.runTransaction { transaction in
                transaction.set("a/b", ["x": 1])
                throw Refused()
            }
        }
        #expect(refused.calls.withLock { $0 } == ["begin t1", "rollback t1"])
    }
}
