import CloudEvents
import CloudFunctions
import Foundation
import GRDB
import Synchronization

extension DatabaseService {
    /// What one tree operation did.
    struct Outcome {
        var change: DatabaseWriteChange
        /// The REST echo.
        var echo: JSONValue
        var isUpdate = false
        /// The locations a rules check covers; empty for the change's own path.
        var writtenPaths: [DatabasePath] = []
    }

    /// Replaces the data at `path` (REST `PUT`); `null` deletes it.
    ///
    /// A conditional write, one without events, or one checked against rules is a
    /// ``DatabaseWrite`` given to ``write(_:)``.
    ///
    /// - Parameter auth: who writes; reported in the events' `authtype`/`authid`.
    /// - Returns: the written value (server values resolved) and the new ETag.
    /// - Throws: `ServiceError.invalidArgument` for a bad namespace, path, key or value;
    ///   ``DatabasePreconditionFailure/error`` (412) on an ETag mismatch; store errors.
    @discardableResult
    public func set(
        namespace: String, path: String, value: JSONValue, auth: DatabaseWriteAuth = .admin
    ) async throws -> DatabaseWriteResult {
        try await write(DatabaseWrite(.set(value), namespace: namespace, path: path, auth: auth))
    }

    /// Merges children into the data at `path` (REST `PATCH`); keys may be relative paths
    /// (`"a/b"`), `null` values delete, unnamed children are kept. All or nothing.
    ///
    /// - Parameter values: a JSON object.
    /// - Returns: the written keys as given with their resolved values, and the new ETag of `path`.
    /// - Throws: `ServiceError.invalidArgument` when `values` is not an object, for overlapping
    ///   or bad keys and bad values; the 412 error on an ETag mismatch; store errors.
    @discardableResult
    public func update(
        namespace: String, path: String, values: JSONValue, auth: DatabaseWriteAuth = .admin
    ) async throws -> DatabaseWriteResult {
        try await write(DatabaseWrite(.update(values), namespace: namespace, path: path, auth: auth))
    }

    /// Stores `value` under a new push id below `path` (REST `POST`).
    ///
    /// - Returns: the new child's path (``DatabaseWriteResult/name`` is the 20-character id),
    ///   the stored value and its ETag.
    /// - Throws: as ``set(namespace:path:value:auth:)``; a ``DatabaseWrite/ifMatch`` is
    ///   compared with the ETag of `path`.
    @discardableResult
    public func push(
        namespace: String, path: String, value: JSONValue, auth: DatabaseWriteAuth = .admin
    ) async throws -> DatabaseWriteResult {
        try await write(DatabaseWrite(.push(value), namespace: namespace, path: path, auth: auth))
    }

    /// Removes the data at `path` (REST `DELETE`).
    ///
    /// - Returns: `null` and the ETag `null_etag`.
    /// - Throws: `ServiceError.invalidArgument` for a bad namespace or path; the 412 error on
    ///   an ETag mismatch; store errors.
    @discardableResult
    public func delete(
        namespace: String, path: String, auth: DatabaseWriteAuth = .admin
    ) async throws -> DatabaseWriteResult {
        try await write(DatabaseWrite(.delete, namespace: namespace, path: path, auth: auth))
    }

    /// Runs `write` in a transaction it may share with writes made meanwhile, each in a
    /// savepoint of its own (``EmulatorStore/writeInGroup(_:)``): for many concurrent writers, as the
    /// REST API has, one commit serves many writes, and no thread waits for the store's writer.
    ///
    /// - Throws: as the method of its operation (``set(namespace:path:value:auth:)``, ...).
    @discardableResult
    public func write(_ write: DatabaseWrite) async throws -> DatabaseWriteResult {
        let (result, emitted) = try await store.writeInGroup(try transaction(for: write))
        if !emitted.isEmpty { emit(emitted) }
        return result
    }

    /// What `write` does inside its transaction; throws at once for a bad namespace, path or
    /// operation, and when a chain of function-made writes is too long.
    private func transaction(
        for write: DatabaseWrite
    ) throws -> @Sendable (inout StoreTransaction) throws -> DatabaseWriteResult {
        try Self.validate(namespace: write.namespace)
        let location = try DatabasePath(write.path)
        guard write.chainDepth <= Self.maximumChainDepth else {
            throw ServiceError(.failedPrecondition,
                "a chain of \(Self.maximumChainDepth) writes made by functions, each triggered by the one "
                    + "before, reached \(location): a function keeps writing where it (or another) listens, so "
                    + "this write was refused to stop the loop"
            )
        }
        let operation: Operation
        switch write.operation {
        case .set(let value):
            operation = { tree, now, _ throws(ServiceError) in
                let change = try tree.set(value, at: location, now: now)
                return Outcome(change: change, echo: DatabaseTree.rendered(change.after))
            }
        case .update(let values):
            guard case .object(let members) = values else {
                throw DatabaseErrorMessage.invalidData("an update must be a JSON object of children to write")
            }
            operation = { tree, now, _ throws(ServiceError) in
                let change = try tree.update(members, at: location, now: now)
                var echo: [String: JSONValue] = [:]
                var written: [DatabasePath] = []
                for key in members.keys {
                    let path = try location.appending(DatabasePath(key))
                    echo[key] = DatabaseTree.rendered(change.after(at: path) ?? .null)
                    written.append(path)
                }
                return Outcome(change: change, echo: .object(echo), isUpdate: true, writtenPaths: written)
            }
        case .push(let value):
            operation = { tree, now, pushIDs throws(ServiceError) in
                var generator = SplitMixRandom()
                let id = pushIDs.next(now: now, using: &generator)
                let change = try tree.push(value, at: location, id: id, now: now)
                return Outcome(change: change, echo: DatabaseTree.rendered(change.after))
            }
        case .delete:
            operation = { tree, _, _ throws(ServiceError) in
                Outcome(change: tree.delete(at: location), echo: .null)
            }
        }
        return { [self] transaction throws -> DatabaseWriteResult in
            try commit(write, at: location, operation: operation, in: &transaction)
        }
    }

    /// Changes a namespace's tree, handing it the tree, the time and the push id generator.
    private typealias Operation = @Sendable (inout DatabaseTree, Date, inout DatabasePushID) throws(ServiceError) -> Outcome

    /// Runs one write inside `transaction`: precondition, tree change, security rules (when
    /// `rulesAuth` is given and rules are set), then log row and events.
    private func commit(
        _ write: DatabaseWrite, at location: DatabasePath, operation: Operation, in transaction: inout StoreTransaction
    ) throws -> DatabaseWriteResult {
        let (namespace, auth, ifMatch, rulesAuth) = (write.namespace, write.auth, write.ifMatch, write.rulesAuth)
        let now = clock.now
        // Writes run one at a time on the store's writer. Inside it the state lock is taken for
        // moments: to apply the operation to the tree, and, once the transaction has committed,
        // to tell the listeners (or, when it rolled back, to take the change back). It is never
        // held across the SQLite write. Readers may see the change a moment before its commit.
        let plan = try state.withLock { state -> CommitPlan in
            var space = state.namespaces.removeValue(forKey: namespace) ?? Namespace()
            defer { state.namespaces[namespace] = space }
            // The tree before the write, kept only when rules need it: holding a second
            // reference makes the write copy the dictionaries along its path.
            let rules = rulesAuth == nil ? nil : state.rules
            let before = rules == nil ? nil : space.tree
            var preconditionFailure: DatabasePreconditionFailure?
            if let ifMatch {
                let current = space.tree.storedValue(at: location)
                let etag = DatabaseETag.etag(of: current)
                if etag != ifMatch {
                    preconditionFailure = DatabasePreconditionFailure(
                        value: DatabaseTree.rendered(current), etag: etag)
                    // The current value goes back with a 412: only once the rules allow the write.
                    if rules == nil { throw preconditionFailure!.error }
                }
            }
            let outcome = try operation(&space.tree, now, &state.pushIDs)
            let change = outcome.change
            if let rulesAuth, let rules, let before {
                let paths = outcome.writtenPaths.isEmpty ? [change.path] : outcome.writtenPaths
                guard rules.canWrite(paths, old: before.storedValue(at: .root),
                    new: space.tree.storedValue(at: .root), auth: rulesAuth, now: now)
                else {
                    space.tree = before
                    throw ServiceError.permissionDeniedByRules
                }
                if let preconditionFailure {
                    space.tree = before
                    throw preconditionFailure.error
                }
            }
            var plan = CommitPlan(
                outcome: outcome,
                result: DatabaseWriteResult(path: change.path, value: outcome.echo, storedValue: change.after))
            guard change.changed else { return plan }
            plan.events = write.disableTriggers
                ? [] : events(for: change, tree: space.tree, namespace: namespace, auth: auth, now: now,
                    triggers: state.triggers, chainDepth: write.chainDepth)
            // Listeners hear of the write once it has committed, from the tree as this write left
            // it: by then later writes sharing the commit may have changed the tree. Those that
            // open from here on start from a tree that holds it, and are not told.
            if state.listeners.values.contains(where: { $0.namespace == namespace }) {
                plan.treeForListeners = space.tree
            }
            plan.previous = space.log
            if space.log.snapshotsNext(interval: snapshotInterval) {
                plan.snapshot = space.tree
                space.log.writesSinceSnapshot = 0
            } else {
                space.log.writesSinceSnapshot += 1
            }
            space.log.sequence += 1
            plan.sequence = space.log.sequence
            return plan
        }
        guard let sequence = plan.sequence else { return plan.result }
        let change = plan.outcome.change
        let isUpdate = plan.outcome.isUpdate
        let previous = plan.previous
        let treeForListeners = plan.treeForListeners
        // Both run on the store's writer, before any later write: listeners hear of writes
        // in commit order, and a rolled-back write (a failed statement or commit) is undone.
        transaction.afterCommit(
            { [self] in
                guard let tree = treeForListeners else { return }
                state.withLock { state in
                    notifyListeners(state.listeners, namespace: namespace, sequence: sequence, change: change,
                        isUpdate: isUpdate, tree: tree)
                }
            },
            orRollback: { [self] in
                state.withLock { state in
                    state.namespaces[namespace]?.tree.revert(change)
                    state.namespaces[namespace]?.log = previous
                    // The next write takes this one's number again: a feed opened since must hear of it.
                    for (id, listener) in state.listeners where listener.namespace == namespace
                        && listener.since > previous.sequence
                    {
                        state.listeners[id]?.since = previous.sequence
                    }
                }
            }
        )
        let logged = try Self.append(DatabaseLogEntry(change: change, isUpdate: isUpdate),
            namespace: namespace, sequence: sequence, in: transaction.db)
        let snapshotBytes = try plan.snapshot.map {
            try Self.saveSnapshot($0, namespace: namespace, sequence: sequence, in: transaction.db)
        }
        // Counted here, on the store's writer, where the next write reads them; a rollback
        // puts back `previous`.
        state.withLock { state in
            if let snapshotBytes {
                state.namespaces[namespace]?.log.snapshotBytes = snapshotBytes
                state.namespaces[namespace]?.log.loggedBytes = 0
            } else {
                state.namespaces[namespace]?.log.loggedBytes += logged
            }
        }
        for event in plan.events { try transaction.emit(event) }
        return plan.result
    }

    /// What the locked part of a write decided, for the part that writes the rows.
    private struct CommitPlan {
        var outcome: Outcome
        var result: DatabaseWriteResult
        /// The log sequence number of the write; `nil` when nothing changed.
        var sequence: Int64?
        var previous = LogState()
        var snapshot: DatabaseTree?
        /// The tree as the write left it, when the namespace has listeners to tell.
        var treeForListeners: DatabaseTree?
        var events: [CloudEvent] = []
    }
}
