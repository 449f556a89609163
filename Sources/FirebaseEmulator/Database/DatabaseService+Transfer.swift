import CloudFunctions
import Foundation
import GRDB
import Synchronization

extension DatabaseService {
    /// The whole tree of a namespace, rendered as a root read returns it (for `emulators:export`).
    ///
    /// - Throws: `ServiceError.invalidArgument` for a bad namespace.
    public func export(namespace: String) throws(ServiceError) -> JSONValue {
        try get(namespace: namespace, path: "/")
    }

    /// The trees of the namespaces that hold data, by name, as they are now (values: cheap to
    /// take), for an export that renders them later with ``rendered(_:)``.
    func trees() -> [(namespace: String, tree: DatabaseTree)] {
        state.withLock { state in
            state.namespaces.filter { !$0.value.tree.isEmpty }.sorted { $0.key < $1.key }.map { ($0.key, $0.value.tree) }
        }
    }

    /// A whole tree, rendered as a root read returns it.
    static func rendered(_ tree: DatabaseTree) -> JSONValue {
        DatabaseTree.rendered(tree.storedValue(at: .root))
    }

    /// Replaces the whole tree of a namespace (for `emulators:import`); emits no events.
    ///
    /// The new tree is stored as a snapshot in one transaction. Change feeds on the namespace
    /// get a `put` at `/` with their location's new value.
    /// - Throws: `ServiceError.invalidArgument` for a bad namespace or invalid data (nothing
    ///   is changed then); store errors.
    public func importTree(namespace: String, value: JSONValue) async throws {
        try Self.validate(namespace: namespace)
        let tree = try DatabaseTree(value, now: clock.now)
        _ = try await store.write { [self] transaction in try importTree(namespace: namespace, tree: tree, in: &transaction) }
    }

    /// Replaces the whole tree of a namespace inside a transaction of the store (the emulator's
    /// import of all services at once); the namespace's name is already checked.
    func importTree(namespace: String, tree: DatabaseTree, in transaction: inout StoreTransaction) throws {
        let sequence = state.withLock { ($0.namespaces[namespace]?.log.sequence ?? 0) + 1 }
        let bytes = try Self.saveSnapshot(tree, namespace: namespace, sequence: sequence, in: transaction.db)
        // Applied once committed, on the store's writer, before any later write.
        transaction.afterCommit { [self] in
            state.withLock { state in
                var space = state.namespaces[namespace] ?? Namespace()
                let old = space.tree
                space.tree = tree
                space.log = LogState(sequence: sequence, snapshotBytes: bytes)
                state.namespaces[namespace] = space
                for listener in state.listeners.values where listener.namespace == namespace {
                    let after = tree.storedValue(at: listener.path)
                    guard old.storedValue(at: listener.path) != after else { continue }
                    listener.continuation.yield(
                        DatabaseChangeEvent(event: .put, path: "/", data: DatabaseTree.rendered(after)))
                }
            }
        }
    }
}
