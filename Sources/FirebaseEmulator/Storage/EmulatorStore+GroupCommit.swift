import GRDB
import Synchronization

extension EmulatorStore {
    /// Writes queued for the next group commit, and whether a writer is committing them.
    struct QueuedWrites {
        var writes: [QueuedWrite] = []
        var isCommitting = false
    }

    /// One queued write.
    struct QueuedWrite: Sendable {
        /// Runs the write in its savepoint.
        let run: @Sendable (GRDB.Database) -> RanWrite
        /// Answers the caller when the shared transaction did not commit.
        let fail: @Sendable (any Error) -> Void
        /// Tells the caller to commit the queue itself: the writes before it are committed.
        let lead: @Sendable () -> Void
    }

    /// What the caller of a queued write waits for: its answer, or its turn to commit the queue.
    final class Turn<Value: Sendable>: Sendable {
        enum Event: Sendable {
            case lead
            case done(Result<Value, any Error>)
        }

        private let state = Mutex<(pending: Event?, waiter: CheckedContinuation<Event, Never>?)>((nil, nil))

        /// Waits for the next event. Not cancellable: a write once queued is committed.
        func next() async -> Event {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event, Never>) in
                let ready = state.withLock { state -> Event? in
                    if let pending = state.pending {
                        state.pending = nil
                        return pending
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        func post(_ event: Event) {
            let waiter = state.withLock { state -> CheckedContinuation<Event, Never>? in
                guard let waiter = state.waiter else {
                    state.pending = event
                    return nil
                }
                state.waiter = nil
                return waiter
            }
            waiter?.resume(returning: event)
        }
    }

    /// A queued write that has run in its savepoint.
    struct RanWrite: Sendable {
        /// Its hooks, when it succeeded; it wrote nothing when it threw.
        var commitHooks: [@Sendable () -> Void] = []
        var rollbackHooks: [@Sendable () -> Void] = []
        /// Answers the caller once the shared transaction has committed: with the write's value,
        /// or the error that undid it alone.
        let answer: @Sendable () -> Void
    }

    /// Runs `body` in a write transaction it may share with other writes (group commit), and
    /// returns once that transaction has committed; events it emits are committed with its
    /// changes.
    ///
    /// Only for writes that read no in-memory state their group's earlier writes change: those
    /// writes' ``StoreTransaction/afterCommit(_:orRollback:)`` hooks run once the whole group
    /// has committed.
    ///
    /// Writes that arrive while a transaction commits wait, without holding a thread, and go
    /// together in the next one, each in a savepoint of its own: a write that throws is undone
    /// alone (its ``StoreTransaction/afterCommit(_:orRollback:)`` rollbacks run at once), the
    /// others commit. Under concurrent writers, such as HTTP requests, many writes share one
    /// commit. A write that arrives alone commits at once.
    ///
    /// No task of its own commits: the caller whose write finds no commit under way commits the
    /// queue, then hands the next group (writes queued meanwhile) to the first of their callers.
    /// A write goes through even when its caller's task is cancelled meanwhile.
    ///
    /// - Returns: what `body` returns, and the outbox entries it added.
    /// - Throws: what `body` throws (it wrote nothing then), or the database error that
    ///   stopped the shared transaction.
    package func writeInGroup<T: Sendable>(
        _ body: @escaping @Sendable (inout StoreTransaction) throws -> T
    ) async throws -> (T, [OutboxEntry]) {
        let turn = Turn<(T, [OutboxEntry])>()
        let trace = TraceScope.current
        let write = QueuedWrite(
            run: { db in
                var transaction = StoreTransaction(db: db, isGrouped: true, trace: trace)
                do {
                    let value = try EmulatorStore.inSavepoint(db) { try body(&transaction) }
                    let result = (value, transaction.emitted)
                    return RanWrite(commitHooks: transaction.commitHooks, rollbackHooks: transaction.rollbackHooks) {
                        turn.post(.done(.success(result)))
                    }
                } catch {
                    for undo in transaction.rollbackHooks.reversed() { undo() }
                    return RanWrite { turn.post(.done(.failure(error))) }
                }
            },
            fail: { turn.post(.done(.failure($0))) },
            lead: { turn.post(.lead) })
        let leads = queuedWrites.withLock { queue -> Bool in
            queue.writes.append(write)
            guard !queue.isCommitting else { return false }
            queue.isCommitting = true
            return true
        }
        if leads { write.lead() }
        while true {
            switch await turn.next() {
            case .done(let result): return try result.get()
            case .lead: await commitQueuedGroup()
            }
        }
    }

    /// Runs `body` in a savepoint of the open transaction: released when `body` returns, rolled
    /// back (its changes undone, the transaction kept) when it throws.
    ///
    /// GRDB's `inSavepoint` does the same with statements it prepares again for every write;
    /// these three are prepared once per connection, which under many small concurrent writes
    /// saves about 3 % of the emulator's CPU. The transaction is GRDB's, so a statement run
    /// after SQLite aborted it still fails rather than committing on its own.
    static func inSavepoint<T>(_ db: GRDB.Database, _ body: () throws -> T) throws -> T {
        // Once SQLite has rolled the group's transaction back by itself (a full disk, or an
        // earlier write's error), no later write may run: outside a transaction its savepoint
        // would open one of its own, which its release would commit.
        guard db.isInsideTransaction else {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "the transaction was rolled back")
        }
        try db.cachedStatement(sql: "SAVEPOINT grouped_write").execute()
        do {
            let value = try body()
            try db.cachedStatement(sql: "RELEASE SAVEPOINT grouped_write").execute()
            return value
        } catch {
            // An error such as a full disk may have rolled the whole transaction back: then
            // there is no savepoint left, and the group's check after its writes reports it.
            if db.isInsideTransaction {
                do {
                    try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT grouped_write").execute()
                    try db.cachedStatement(sql: "RELEASE SAVEPOINT grouped_write").execute()
                } catch {
                    // Its changes cannot be undone alone: the whole transaction is rolled back,
                    // so that none of the group's writes is stored (that check fails them all).
                    try? db.execute(sql: "ROLLBACK TRANSACTION")
                }
            }
            throw error
        }
    }

    /// Commits the writes queued now in one transaction, then hands the writes queued meanwhile
    /// to the caller of the first of them (or ends the commit under way when none are).
    private func commitQueuedGroup() async {
        let group = queuedWrites.withLock { queue -> [QueuedWrite] in
            defer { queue.writes = [] }
            return queue.writes
        }
        let answers: [@Sendable () -> Void]
        do {
            answers = try await writeUncancelled { db in
                let ran = group.map { $0.run(db) }
                // An error such as a full disk makes SQLite roll the whole transaction back
                // by itself: the writes that had run are gone, so their changes go too.
                guard db.isInsideTransaction else {
                    for write in ran.reversed() { for undo in write.rollbackHooks.reversed() { undo() } }
                    throw DatabaseError(resultCode: .SQLITE_ABORT, message: "the transaction was rolled back")
                }
                // Hooks run in commit order; a failed commit undoes the writes last to first.
                db.afterNextTransaction(
                    onCommit: { _ in
                        for write in ran { for hook in write.commitHooks { hook() } }
                    },
                    onRollback: { _ in
                        for write in ran.reversed() { for undo in write.rollbackHooks.reversed() { undo() } }
                    })
                return ran.map(\.answer)
            }
        } catch {
            // The transaction did not commit: no write of the group is stored.
            answers = group.map { write in { write.fail(error) } }
        }
        let next = queuedWrites.withLock { queue -> QueuedWrite? in
            guard let first = queue.writes.first else {
                queue.isCommitting = false
                return nil
            }
            return first
        }
        for answer in answers { answer() }
        next?.lead()
    }
}

extension EmulatorStore {
    /// How many writes wait for the next group commit.
    package var queuedWriteCount: Int { queuedWrites.withLock { $0.writes.count } }
}
