import Synchronization

/// A transaction in progress: reads go to the service at once, writes are kept and commit with it.
public final class FirestoreTransaction: Sendable {
    let client: any FirestoreClient
    /// The transaction's id.
    public let id: String
    private let pending = Mutex<[FirestoreWrite]>([])

    init(client: any FirestoreClient, id: String) {
        self.client = client
        self.id = id
    }

    /// The writes made so far.
    var writes: [FirestoreWrite] { pending.withLock { $0 } }

    /// The document at `path`, as of the transaction.
    public func get(_ path: String) async throws -> DocumentSnapshot {
        try await client.get(path, transaction: id)
    }

    /// Writes the document at `path` when the transaction commits.
    public func set(_ path: String, _ fields: [String: FirestoreValue], merge: Bool = false) {
        pending.withLock { $0.append(.set(path, fields, merge: merge)) }
    }

    /// Creates the document at `path` when the transaction commits.
    public func create(_ path: String, _ fields: [String: FirestoreValue]) {
        pending.withLock { $0.append(.create(path, fields)) }
    }

    /// Changes fields of the document at `path` when the transaction commits.
    public func update(_ path: String, _ fields: [String: FirestoreValue]) {
        pending.withLock { $0.append(.update(path, fields)) }
    }

    /// Deletes the document at `path` when the transaction commits.
    public func delete(_ path: String) {
        pending.withLock { $0.append(.delete(path)) }
    }
}
