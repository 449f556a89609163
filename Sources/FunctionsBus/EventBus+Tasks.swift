import CloudFunctions
import Foundation
import Synchronization

extension EventBus {
    /// Work for the bus's run loop: a child task to start.
    struct Spawn: Sendable {
        /// The work; it ends by releasing its watcher.
        let work: @Sendable () async -> Void
        /// Returns once the work is abandoned or has ended.
        let watch: @Sendable () async -> Void
    }

    /// The bus's run loop: every drainer and timer runs as a child task of it, so they all end
    /// before it does, and cancelling it cancels them. It ends once ``shutdown()`` (or the bus
    /// going away) finishes the stream of work; timers still sleeping then are cancelled.
    static func runLoop(_ spawns: AsyncStream<Spawn>) async {
        await withDiscardingTaskGroup { group in
            for await spawn in spawns {
                group.addTask {
                    // The work runs in a child of its own, which the bus can abandon (a timed-out
                    // handler, a superseded timer): the watch returns then, and the work is
                    // cancelled. It also returns when the work ends.
                    await withTaskGroup(of: Void.self) { watched in
                        watched.addTask { await spawn.work() }
                        await spawn.watch()
                        watched.cancelAll()
                    }
                }
            }
            group.cancelAll()
        }
    }

    /// Starts `work` as a child task of the run loop; `abandon(_:in:)` with the returned id
    /// cancels it. Call under the lock.
    func spawn(_ state: inout BusState, _ work: @escaping @Sendable () async -> Void) -> UInt64 {
        let id = state.nextTaskID
        state.nextTaskID += 1
        state.abandonments[id] = .running
        spawns.yield(Spawn(
            work: { [self] in
                await work()
                abandon(id)   // ended: let its watcher go
            },
            watch: { [self] in await watch(id) }
        ))
        return id
    }

    /// Cancels the child task `id`, if it still runs; also how a child that ended releases
    /// its watcher.
    func abandon(_ id: UInt64) {
        let watcher = state.withLock { state in abandon(id, in: &state) }
        watcher?.resume()
    }

    /// Marks the child task `id` abandoned; returns its watcher to resume (which is safe under
    /// the lock too: resuming only schedules it).
    func abandon(_ id: UInt64, in state: inout BusState) -> CheckedContinuation<Void, Never>? {
        switch state.abandonments[id] {
        case .watched(let watcher)?:
            state.abandonments[id] = nil
            return watcher
        case .running?:
            state.abandonments[id] = .released
            return nil
        case .released?, nil:
            return nil
        }
    }

    /// Returns when the child task `id` is abandoned or has ended, or when the run loop is
    /// cancelled.
    func watch(_ id: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let released = state.withLock { state -> Bool in
                    guard case .running? = state.abandonments[id] else {
                        state.abandonments[id] = nil
                        return true
                    }
                    state.abandonments[id] = .watched(continuation)
                    return false
                }
                if released { continuation.resume() }
            }
        } onCancel: {
            abandon(id)
        }
    }
}
