import Foundation
import Logging
import Synchronization

extension EventBus {
    /// Makes sure the timer wakes up no later than `deadline`.
    func armTimer(for deadline: Date, in state: inout BusState) {
        if let armed = state.timerDeadline, armed <= deadline { return }
        state.timer?.cancel()
        state.timerGeneration += 1
        let generation = state.timerGeneration
        state.timerDeadline = deadline
        state.timer = Task { await self.timerFired(generation: generation, deadline: deadline) }
    }

    /// Sleeps until `deadline`, then times out overdue attempts and queues due retries.
    private func timerFired(generation: UInt64, deadline: Date) async {
        do {
            try await clock.sleep(until: deadline)
        } catch {
            return
        }
        var effects = BusEffects()
        state.withLock { state in
            defer { state.reportsInProgress += effects.reports.count + effects.finished.count }
            let now = clock.now
            timeOutOverdueAttempts(now: now, in: &state, effects: &effects)
            while let retry = state.retries.earliest, retry.due <= now {
                var pending = state.retries.popEarliest()!
                pending.delivery.machine.retryDue()
                enqueue(contentsOf: [pending.delivery], lane: pending.lane, in: &state)
            }
            guard generation == state.timerGeneration else { return }
            state.timer = nil
            state.timerDeadline = nil
            let nextTimeout = state.inFlight.values.map(\.deadline).min()
            let nextRetry = state.retries.earliest?.due
            if let next = [nextTimeout, nextRetry].compactMap({ $0 }).min() {
                armTimer(for: next, in: &state)
            }
            effects.waiters += state.takeIdleWaitersIfIdle(now: now)
        }
        finishEffects(effects)
    }

    /// Fails every attempt past its deadline, cancels its handler and frees its slot.
    private func timeOutOverdueAttempts(now: Date, in state: inout BusState, effects: inout BusEffects) {
        let overdue = state.inFlight.filter { $0.value.deadline <= now }
        for (attemptID, entry) in overdue {
            state.inFlight[attemptID] = nil
            state.lanes[entry.lane].running -= 1
            state.lanes[entry.lane].drainers -= 1
            state.drainers.removeValue(forKey: entry.drainer)?.cancel()
            let timeout = lanes[entry.lane].function.options.timeout
            conclude(
                entry.delivery,
                lane: entry.lane,
                error: "timed out after \(timeout.seconds.formatted()) s",
                in: &state,
                effects: &effects
            )
            startDrainerIfNeeded(lane: entry.lane, in: &state)
        }
    }
}

extension Double {
    fileprivate func formatted() -> String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
