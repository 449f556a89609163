import CloudFunctions
import CloudEvents
import DequeModule
import HeapModule
import Foundation
import Logging
import Synchronization

/// Side effects decided under a lock and carried out after it is released.
struct BusEffects {
    var reports: [DeliveryReport] = []
    /// Events finished for every function, told to the observer after the reports.
    var finished: [CloudEvent.Key] = []
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// Parked drainers to wake because work arrived.
    var wakeups: [CheckedContinuation<Bool, Never>] = []

    /// Reports and finished events, each of which the observer is still to hear.
    var toObserve: Int { reports.count + finished.count }
}

extension EventBus {
    /// Runs `body` under the bus's lock, counting the reports it adds as in progress (they are
    /// handed to the observer after the lock, by ``finishEffects(_:)``).
    func withBusLock<Result>(
        _ effects: inout BusEffects, _ body: (inout BusState, inout BusEffects) -> Result
    ) -> Result {
        state.withLock { state in
            let before = effects.toObserve
            defer { state.reportsInProgress += effects.toObserve - before }
            return body(&state, &effects)
        }
    }

    /// ``enqueue(count:lane:effects:_:)`` for deliveries already made (a retry, a replay).
    func enqueue(contentsOf deliveries: [Delivery], lane index: Int, effects: inout BusEffects) {
        enqueue(count: deliveries.count, lane: index, effects: &effects) { $0.append(contentsOf: deliveries) }
    }

    /// Puts the `count` deliveries `append` adds to its function's queue, under the function's
    /// lock, and has a drainer take them. Called under the bus's lock, which checked that the
    /// bus is not shutting down.
    func enqueue(count: Int, lane index: Int, effects: inout BusEffects, _ append: (inout Deque<Delivery>) -> Void) {
        lanes[index].state.withLock { lane in
            active.add(count, ordering: .sequentiallyConsistent)
            carryOut(lane.enqueue(append), lane: index, effects: &effects)
        }
    }

    /// Carries out a lane's scheduling: a parked drainer is woken after the locks are released;
    /// a new one is counted into the bus and started at once, under the lane's lock (so that a
    /// shutdown never sees the bus without drainers while the lane has one more).
    func carryOut(_ scheduling: LaneStateMachine.Scheduling, lane index: Int, effects: inout BusEffects) {
        switch scheduling {
        case .none:
            return
        case .wake(let parked):
            effects.wakeups.append(parked.continuation)
        case .startDrainer:
            drainerCount.add(1, ordering: .sequentiallyConsistent)
            // The drainer's task id is how the timer cancels it when its handler times out.
            tasks.spawn { [self] id in
                while await drain(lane: index, drainer: id), await park(lane: index, drainer: id) {}
            }
        }
    }

    /// Runs deliveries of one function until the queue is empty (`true`: park, so the next event
    /// needs no new task), or until this drainer is to end (`false`: it timed out, the bus shuts
    /// down, or the queue is empty and another drainer is parked already).
    ///
    /// Recording one attempt's end and taking the next delivery share one acquisition of the
    /// lane's lock; the bus's lock is taken only for what concerns every function (a retry, a
    /// dead letter, a report for the observer, a timer to arm, someone waiting for idle).
    func drain(lane index: Int, drainer id: UInt64) async -> Bool {
        let lane = lanes[index]
        // The attempt that just ended, and its error: two variables, as an optional tuple
        // holding an existential is copied through the runtime's generic witnesses.
        var finished: LaneStateMachine.Attempt?
        var failure: (any Error)?
        while true {
            var effects = BusEffects()
            var ended: Delivery?
            var expired: [Delivery] = []
            // One reading of the clock serves the attempt that ended and the one that starts.
            // It is taken before the lane's lock, so that the publisher and other drainers do
            // not wait for it.
            let now = clock.now
            let closing = closing.load(ordering: .sequentiallyConsistent)
            let next = lane.state.withLock { state -> LaneStateMachine.Next? in
                if let finished {
                    // Timed out already: the timer has counted this drainer out and replaced it.
                    guard let delivery = state.finish(finished.id) else { return nil }
                    ended = delivery
                }
                let next = state.next(drainer: id, now: now, closing: closing, expired: &expired)
                if case .run(_, _, let scheduling) = next { carryOut(scheduling, lane: index, effects: &effects) }
                return next
            }
            if let ended {
                conclude(ended, lane: index, error: failure.map { "\($0)" }, now: now, effects: &effects)
            }
            if !expired.isEmpty {
                withBusLock(&effects) { state, effects in
                    for delivery in expired { giveUp(delivery, lane: index, reason: .expired, now: now, in: &state, effects: &effects) }
                }
                release(expired.count, effects: &effects)
            }
            finished = nil
            failure = nil
            if case .stop = next { drainerGone() }
            finishEffects(effects)
            let attempt: LaneStateMachine.Attempt
            let event: CloudEvent
            switch next {
            case .run(let next, let nextEvent, _): (attempt, event) = (next, nextEvent)
            case .park: return true
            case .stop, nil: return false
            }
            armTimerIfNeeded(for: attempt.deadline)
            let context = EventContext(
                event: event, invocations: lane.invocations, attempt: attempt.number, deadline: attempt.deadline)
            do {
                try await lane.handle(context.event, context)
            } catch {
                failure = error
            }
            finished = attempt
        }
    }

    /// Waits, as the lane's one parked drainer, until work arrives (`true`) or the drainer is
    /// to end (`false`: the bus shuts down, the drainer is cancelled, or another one parked
    /// first). Whoever decides that it ends counts it out of its lane in the same locked section.
    private func park(lane index: Int, drainer id: UInt64) async -> Bool {
        let lane = lanes[index]
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let parking = lane.state.withLock { state in
                    state.park(
                        drainer: id, continuation: continuation, closing: closing.load(ordering: .sequentiallyConsistent),
                        cancelled: Task.isCancelled)
                }
                switch parking {
                case .takeWork: continuation.resume(returning: true)
                case .end:
                    drainerGone()
                    continuation.resume(returning: false)
                case .parked: break
                }
            }
        } onCancel: {
            guard let parked = lane.state.withLock({ $0.cancelPark(drainer: id) }) else { return }
            drainerGone()
            parked.continuation.resume(returning: false)
        }
    }

    /// Counts out of the bus a drainer its lane has counted out; the last one to end while the
    /// bus shuts down resumes the shutdown. Called without any lock held.
    func drainerGone() {
        guard drainerCount.subtract(1, ordering: .sequentiallyConsistent).newValue == 0,
            closing.load(ordering: .sequentiallyConsistent)
        else { return }
        for waiter in state.withLock({ takeDrainersGoneIfDone(&$0) }) { waiter.resume() }
        tasks.finish()
    }

    /// The shutdown calls to resume: when shutting down and no drainer is left. Called under the
    /// bus's lock, after any replacement drainer has been counted in.
    func takeDrainersGoneIfDone(_ state: inout BusState) -> [CheckedContinuation<Void, Never>] {
        guard state.shuttingDown, drainerCount.load(ordering: .sequentiallyConsistent) == 0 else { return [] }
        defer { state.drainersGone = [] }
        return state.drainersGone
    }

    /// Makes sure a timer wakes up by `deadline`. Without a lock: the bus's lock is taken only
    /// when the armed timer (if any) wakes up later than that.
    private func armTimerIfNeeded(for deadline: Date) {
        let armed = Double(bitPattern: armedDeadline.load(ordering: .sequentiallyConsistent))
        guard deadline.timeIntervalSinceReferenceDate < armed else { return }
        state.withLock { armTimer(for: deadline, in: &$0) }
    }

    /// Applies the outcome of an attempt a drainer has taken out of its lane: done, retry later,
    /// or dead letter. Without a lock held; takes the bus's lock unless the delivery simply
    /// succeeded with nobody observing (or it leaves the bus idle and someone waits for that).
    func conclude(
        _ delivery: consuming Delivery, lane index: Int, error: String?, now: Date, effects: inout BusEffects
    ) {
        let action = endAttempt(of: &delivery, lane: index, error: error, now: now)
        if case .done = action, !observed {
            release(1, effects: &effects)
            return
        }
        let delivery = delivery
        withBusLock(&effects) { state, effects in
            record(action, of: delivery, lane: index, error: error, now: now, in: &state, effects: &effects)
        }
        release(1, effects: &effects)
    }

    /// Ends the running attempt of `delivery`, which failed with `error` or succeeded (`nil`):
    /// what becomes of the delivery. Takes no lock.
    func endAttempt(
        of delivery: inout Delivery, lane index: Int, error: String?, now: Date
    ) -> DeliveryStateMachine.FinishAction {
        delivery.lastError = error ?? delivery.lastError
        return delivery.machine.finish(
            succeeded: error == nil,
            now: now,
            limits: lanes[index].limits,
            random: error == nil ? 0 : configuration.random()
        )
    }

    /// Records, under the bus's lock, what became of a delivery whose attempt ended.
    func record(
        _ action: DeliveryStateMachine.FinishAction, of delivery: Delivery, lane index: Int, error: String?, now: Date,
        in state: inout BusState, effects: inout BusEffects
    ) {
        switch action {
        case .done:
            if observed {
                effects.reports.append(report(delivery, lane: index, status: .succeeded, error: nil, now: now))
                finishDelivery(of: delivery.event, in: &state, effects: &effects)
            }
        case .retry(let due):
            effects.reports.append(report(delivery, lane: index, status: .willRetry(at: due), error: error, now: now))
            // Once the bus shuts down, a retry is dropped as the pending ones were.
            guard !state.shuttingDown else { return }
            state.retries.insert(BusState.PendingRetry(due: due, lane: index, delivery: delivery))
            armTimer(for: due, in: &state)
        case .deadLetter(let reason):
            giveUp(delivery, lane: index, reason: reason, now: now, in: &state, effects: &effects)
        }
    }

    /// Counts deliveries whose outcome is recorded out of the active ones. Without a lock held:
    /// the one that leaves the bus idle takes the bus's lock when someone waits for that.
    func release(_ count: Int, effects: inout BusEffects) {
        guard active.subtract(count, ordering: .sequentiallyConsistent).newValue == 0,
            idleWaited.load(ordering: .sequentiallyConsistent)
        else { return }
        state.withLock { takeIdleWaitersIfIdle(&$0, now: clock.now, into: &effects.waiters) }
    }

    /// Whether nothing is queued or running, the observer has heard everything, and no retry is
    /// due (or, `includingRetries`, scheduled at all).
    func isIdle(_ state: BusState, now: Date, includingRetries: Bool = false) -> Bool {
        guard active.load(ordering: .sequentiallyConsistent) == 0, state.reportsInProgress == 0 else { return false }
        guard let due = state.retries.min?.due else { return true }
        return !includingRetries && due > now
    }

    /// Moves the waiters to resume into `waiters` when the bus has become idle. (Appending an
    /// empty array of continuations, whose layout the standard library hides, is not free: it
    /// is skipped when nobody waits.)
    func takeIdleWaitersIfIdle(_ state: inout BusState, now: Date, into waiters: inout [CheckedContinuation<Void, Never>]) {
        guard !state.idleWaiters.isEmpty, isIdle(state, now: now) else { return }
        let drained = state.retries.isEmpty
        for (id, waiter) in state.idleWaiters where drained || !waiter.includingRetries {
            waiters.append(waiter.continuation)
            state.idleWaiters[id] = nil
        }
        if state.idleWaiters.isEmpty { idleWaited.store(false, ordering: .sequentiallyConsistent) }
    }

    func giveUp(
        _ delivery: Delivery,
        lane index: Int,
        reason: DeadLetter.Reason,
        now: Date,
        in state: inout BusState,
        effects: inout BusEffects
    ) {
        let error = reason == .expired ? "the event is older than the function's maximum event age" : delivery.lastError
        let letter = DeadLetter(
            function: lanes[index].name,
            event: delivery.event,
            attempts: delivery.machine.attempts,
            lastError: error,
            reason: reason,
            time: now
        )
        state.addDeadLetter(letter)
        // Listed once the observer has heard that the event is finished (``finishEffects(_:)``):
        // a replay then comes after the observer's record of the give-up, never before it.
        if observer != nil { state.unlistedDeadLetters.insert(letter.id) }
        effects.reports.append(report(delivery, lane: index, status: .deadLettered(reason), error: error, now: now))
        if observed { finishDelivery(of: delivery.event, in: &state, effects: &effects) }
    }

    /// Counts one delivery of `event` as finished; the last one finishes the event.
    private func finishDelivery(of event: CloudEvent, in state: inout BusState, effects: inout BusEffects) {
        let key = event.key
        guard let remaining = state.unfinished[key] else { return }
        if remaining > 1 {
            state.unfinished[key] = remaining - 1
        } else {
            state.unfinished[key] = nil
            effects.finished.append(key)
        }
    }

    private func report(
        _ delivery: Delivery,
        lane index: Int,
        status: DeliveryReport.Status,
        error: String?,
        now: Date
    ) -> DeliveryReport {
        DeliveryReport(
            function: lanes[index].name,
            eventId: delivery.event.id,
            eventSource: delivery.event.source,
            eventType: delivery.event.type,
            attempt: delivery.machine.attempts,
            status: status,
            error: error,
            time: now,
            startedAt: delivery.machine.startedAt
        )
    }

    func finishEffects(_ effects: BusEffects) {
        var waiters = effects.waiters
        // Without an observer, a delivery that succeeded leaves nothing to report.
        if effects.toObserve > 0 {
            if let observer {
                for report in effects.reports { observer.deliveryFinished(report) }
                for key in effects.finished { observer.eventFinished(key) }
            }
            for report in effects.reports {
                if case .deadLettered(let reason) = report.status {
                    logger.warning(
                        "event given up on",
                        metadata: [
                            "function": "\(report.function)", "event.id": "\(report.eventId)",
                            "reason": "\(reason.rawValue)", "error": "\(report.error ?? "")",
                        ]
                    )
                }
            }
            state.withLock { state in
                if !state.unlistedDeadLetters.isEmpty {
                    for report in effects.reports {
                        guard case .deadLettered = report.status else { continue }
                        state.unlistedDeadLetters.remove(
                            DeadLetter.id(function: report.function, eventSource: report.eventSource, eventId: report.eventId))
                    }
                }
                state.reportsInProgress -= effects.toObserve
                takeIdleWaitersIfIdle(&state, now: clock.now, into: &waiters)
            }
        }
        for waiter in waiters { waiter.resume() }
        for drainer in effects.wakeups { drainer.resume(returning: true) }
    }
}
