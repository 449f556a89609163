import CloudFunctions
import Foundation
import HeapModule
import Logging
import Synchronization

extension EventBus {
    /// Makes sure the timer wakes up no later than `deadline`: a later armed timer is cancelled
    /// for a new one.
    func armTimer(for deadline: Date, in state: inout BusState) {
        if let armed = state.timer {
            if armed.deadline <= deadline { return }
            tasks.cancel(armed.task)
        }
        // Asleep, the timer holds the bus weakly: a bus nobody holds goes away without waiting
        // for its timer.
        let clock = clock
        let bus: @Sendable () -> EventBus? = { [weak self] in self }
        let id = tasks.spawn { id in
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            bus()?.timerFired(id: id)
        }
        state.timer = (id, deadline)
    }

    /// Times out overdue attempts and queues due retries, then arms the timer for what is next.
    private func timerFired(id: UInt64) {
        var effects = BusEffects()
        state.withLock { state in
            defer {
                state.reportsInProgress += effects.reports.count + effects.finished.count
                effects.waiters += state.takeDrainersGoneIfDone()
            }
            let now = clock.now
            timeOutOverdueAttempts(now: now, in: &state, effects: &effects)
            // Retries not yet run when the bus shuts down are dropped (they stay unfinished).
            while !state.shuttingDown, let retry = state.retries.min, retry.due <= now {
                var pending = state.retries.removeMin()
                pending.delivery.machine.retryDue()
                enqueue(contentsOf: [pending.delivery], lane: pending.lane, in: &state, effects: &effects)
            }
            guard state.timer?.task == id else { return }
            state.timer = nil
            let nextTimeout = state.inFlight.values.map(\.deadline).min()
            let nextRetry = state.retries.min?.due
            if let next = [nextTimeout, nextRetry].compactMap({ $0 }).min() {
                armTimer(for: next, in: &state)
            }
            state.takeIdleWaitersIfIdle(now: now, into: &effects.waiters)
        }
        finishEffects(effects)
    }

    /// Fails every attempt past its deadline, cancels its handler and frees its slot.
    private func timeOutOverdueAttempts(now: Date, in state: inout BusState, effects: inout BusEffects) {
        let overdue = state.inFlight.filter { $0.value.deadline <= now }
        for (attemptID, entry) in overdue {
            state.inFlight[attemptID] = nil
            state.lanes[entry.lane].running -= 1
            // The drainer running it is cancelled (and its handler); a new one takes over.
            state.drainerEnded(lane: entry.lane)
            tasks.cancel(entry.drainer)
            conclude(
                entry.delivery,
                lane: entry.lane,
                error: "timed out after \(lanes[entry.lane].limits.timeout.formatted()) s",
                now: now,
                in: &state,
                effects: &effects
            )
            startDrainerIfNeeded(lane: entry.lane, in: &state, effects: &effects)
        }
    }
}

extension Double {
    fileprivate func formatted() -> String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
