import CloudFunctions
import Foundation
import HeapModule
import Logging
import Synchronization

extension EventBus {
    /// Makes sure the timer wakes up no later than `deadline`: a later armed timer is cancelled
    /// for a new one. Called under the bus's lock.
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
        armedDeadline.store(deadline.timeIntervalSinceReferenceDate.bitPattern, ordering: .sequentiallyConsistent)
    }

    /// Times out overdue attempts and queues due retries, then arms the timer for what is next.
    private func timerFired(id: UInt64) {
        var effects = BusEffects()
        withBusLock(&effects) { state, effects in
            defer { effects.waiters += takeDrainersGoneIfDone(&state) }
            let now = clock.now
            // Disarmed before the lanes are read: an attempt that starts from now on arms a
            // timer itself, one that started before is seen in its lane.
            let ours = state.timer?.task == id
            if ours {
                state.timer = nil
                armedDeadline.store(Double.infinity.bitPattern, ordering: .sequentiallyConsistent)
            }
            let nextTimeout = timeOutOverdueAttempts(now: now, in: &state, effects: &effects)
            // (Shutdown empties the retries: none is queued again once it has begun.)
            while let retry = state.retries.min, retry.due <= now {
                var pending = state.retries.removeMin()
                pending.delivery.machine.retryDue()
                enqueue(contentsOf: [pending.delivery], lane: pending.lane, effects: &effects)
            }
            if ours, let next = [nextTimeout, state.retries.min?.due].compactMap({ $0 }).min() {
                armTimer(for: next, in: &state)
            }
            takeIdleWaitersIfIdle(&state, now: now, into: &effects.waiters)
        }
        finishEffects(effects)
        // The drainers a shutdown waited for may all have timed out: then it is done.
        if closing.load(ordering: .sequentiallyConsistent), drainerCount.load(ordering: .sequentiallyConsistent) == 0 {
            tasks.finish()
        }
    }

    /// Fails every attempt past its deadline, cancels its handler and frees its slot. Called
    /// under the bus's lock.
    ///
    /// - Returns: the earliest deadline of the attempts still running.
    private func timeOutOverdueAttempts(now: Date, in state: inout BusState, effects: inout BusEffects) -> Date? {
        var earliest: Date?
        for index in lanes.indices {
            let overdue = lanes[index].state.withLock { lane in
                let (overdue, replacements) = lane.timeOut(now: now)
                // The drainers running them are cancelled (and their handlers); new ones take over.
                for entry in overdue { tasks.cancel(entry.drainer) }
                for replacement in replacements { carryOut(replacement, lane: index, effects: &effects) }
                if let deadline = lane.earliestDeadline, earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
                return overdue
            }
            guard !overdue.isEmpty else { continue }
            // Counted out of the bus after any replacement was counted in.
            drainerCount.subtract(overdue.count, ordering: .sequentiallyConsistent)
            let timeout = "timed out after \(lanes[index].limits.timeout.formatted()) s"
            for entry in overdue {
                var delivery = entry.delivery
                let action = endAttempt(of: &delivery, lane: index, error: timeout, now: now)
                record(action, of: delivery, lane: index, error: timeout, now: now, in: &state, effects: &effects)
                active.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        return earliest
    }
}

extension Double {
    fileprivate func formatted() -> String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
