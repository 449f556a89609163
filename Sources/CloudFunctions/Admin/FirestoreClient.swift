/// Cloud Firestore for a handler: documents by path (`gameScores/s1`) in one database.
///
/// ```swift
/// try await context.admin.firestore.runTransaction { transaction in
///     let best = try await transaction.get("leaderboards/ada")
///     if (best["best"]?.numberValue ?? -1) < 42 { transaction.set("leaderboards/ada", ["best": 42]) }
/// }
/// ```
public protocol FirestoreClient: Sendable {
    /// The document at `path`; one that does not exist has ``DocumentSnapshot/exists`` false.
    /// In a transaction (`transaction` from ``beginTransaction()``), the read is part of it.
    func get(_ path: String, transaction: String?) async throws -> DocumentSnapshot

    /// The documents of `query`, in its order.
    func query(_ query: FirestoreQuery) async throws -> [DocumentSnapshot]

    /// Applies `writes` all or nothing, as part of `transaction` when given (its commit).
    ///
    /// - Throws: the service's error: `ALREADY_EXISTS` for a create of a document that exists,
    ///   `NOT_FOUND` for an update of one that does not, `ABORTED` when a transaction lost a
    ///   contention (``runTransaction(maxAttempts:_:)`` tries again then).
    func commit(_ writes: [FirestoreWrite], transaction: String?) async throws

    /// Starts a transaction; its id goes to ``get(_:transaction:)`` and ``commit(_:transaction:)``.
    func beginTransaction() async throws -> String

    /// Gives up a transaction without writing.
    func rollback(_ transaction: String) async throws
}

extension FirestoreClient {
    /// The document at `path`.
    public func get(_ path: String) async throws -> DocumentSnapshot {
        try await get(path, transaction: nil)
    }

    /// Writes `fields` as the document at `path`: all of it, or with `merge`, only the fields given.
    public func set(_ path: String, _ fields: [String: FirestoreValue], merge: Bool = false) async throws {
        try await commit([.set(path, fields, merge: merge)], transaction: nil)
    }

    /// Creates the document at `path`; fails with `ALREADY_EXISTS` when there is one.
    public func create(_ path: String, _ fields: [String: FirestoreValue]) async throws {
        try await commit([.create(path, fields)], transaction: nil)
    }

    /// Changes the fields at the given field paths (`"address.city"`) of an existing document.
    public func update(_ path: String, _ fields: [String: FirestoreValue]) async throws {
        try await commit([.update(path, fields)], transaction: nil)
    }

    /// Deletes the document at `path` (deleting one that does not exist is no error).
    public func delete(_ path: String) async throws {
        try await commit([.delete(path)], transaction: nil)
    }

    /// Applies `writes` all or nothing: a batched write.
    public func commit(_ writes: [FirestoreWrite]) async throws {
        try await commit(writes, transaction: nil)
    }

    /// Runs `body` in a transaction: its reads see one snapshot, and its writes commit together
    /// only if nothing it read changed meanwhile. When the transaction is aborted (`ABORTED`:
    /// another transaction won, or a lock was not had in time), whether by a read or by the
    /// commit, it is rolled back and `body` runs again, up to `maxAttempts` times, after a
    /// growing, jittered pause, as Google's client libraries do. When `body` throws anything
    /// else, nothing is written.
    public func runTransaction<Result: Sendable>(
        maxAttempts: Int = 5, _ body: (FirestoreTransaction) async throws -> Result
    ) async throws -> Result {
        var attempt = 1
        while true {
            let transaction = FirestoreTransaction(client: self, id: try await beginTransaction())
            let result: Result
            do {
                result = try await body(transaction)
            } catch {
                try? await rollback(transaction.id)
                guard let aborted = error as? FirestoreError, aborted.status == "ABORTED", attempt < maxAttempts else {
                    throw error
                }
                try await Self.pause(before: &attempt)
                continue
            }
            do {
                try await commit(transaction.writes, transaction: transaction.id)
                return result
            } catch let error as FirestoreError where error.status == "ABORTED" && attempt < maxAttempts {
                try await Self.pause(before: &attempt)
            }
        }
    }

    /// Waits before the next attempt: 100 ms doubling to 3.2 s, each between half and one and a
    /// half times that, so that transactions aborted together do not collide again.
    private static func pause(before attempt: inout Int) async throws {
        attempt += 1
        let base = 50.0 * Double(1 << min(attempt, 6))
        try await Task.sleep(for: .milliseconds(Int(base * Double.random(in: 0.5...1.5))))
    }
}
