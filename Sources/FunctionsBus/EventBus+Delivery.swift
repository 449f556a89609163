import CloudFunctions
import CloudEvents
import DequeModule
import HeapModule
import Foundation
import Logging
import Synchronization

/// Side effects decided under the lock and carried out after it is released.
struct BusEffects {
    var reports: [DeliveryReport] = []
    /// Events finished for every function, told to the observer after the reports.
    var finished: [CloudEvent.Key] = []
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// Parked drainers to wake because work arrived.
    var wakeups: [CheckedContinuation<Bool, Never>] = []
}

extension EventBus {
    /// An attempt a drainer runs: its event, and which attempt it is. The delivery itself
    /// stays in the bus's in-flight record, so taking a job copies only the event's reference.
    struct Job {
        let attemptID: UInt64
        let event: CloudEvent
        let attempt: Int
        let deadline: Date
    }

    /// Puts deliveries in their function's queue and starts a drainer if one is needed.
    func enqueue(
        contentsOf deliveries: [Delivery], lane index: Int, in state: inout BusState, effects: inout BusEffects
    ) {
        state.lanes[index].queue.append(contentsOf: deliveries)
        state.active += deliveries.count
        startDrainerIfNeeded(lane: index, in: &state, effects: &effects)
    }

    /// What a drainer does next.
    private enum Next {
        case run(Job)
        /// The queue is empty: wait for work as the lane's parked drainer.
        case park
        /// End: the queue is empty and another drainer is parked, or the attempt timed out.
        case stop
    }

    /// Drainers take deliveries one after another, so under load one task serves many
    /// events. More drainers are needed only when work is queued and every drainer is busy
    /// running a handler: checked when work arrives and each time a drainer starts a delivery,
    /// so busy (suspended) handlers grow the number of drainers up to the concurrency limit
    /// while fast ones are served by few. A parked drainer is woken first; a new one is started
    /// only when none is parked.
    func startDrainerIfNeeded(lane index: Int, in state: inout BusState, effects: inout BusEffects) {
        // Read in place: a copy of the lane (its queue, its parked drainer) costs retains at every delivery.
        let drainers = state.lanes[index].drainers
        let idle = state.lanes[index].parked == nil ? 0 : 1
        guard !state.lanes[index].queue.isEmpty, drainers - idle == state.lanes[index].running else { return }
        if let parked = state.lanes[index].parked {
            state.lanes[index].parked = nil
            effects.wakeups.append(parked.continuation)
            return
        }
        guard drainers < lanes[index].concurrency else { return }
        state.lanes[index].drainers += 1
        // The drainer's task id is how the timer cancels it when its handler times out. It
        // holds the bus only while it drains: parked, it holds it weakly, so a bus nobody
        // holds goes away (and its deinit ends the parked drainer).
        let bus: @Sendable () -> EventBus? = { [weak self] in self }
        tasks.spawn { id in
            while await bus()?.drain(lane: index, drainer: id) == true,
                await EventBus.park(bus, lane: index, drainer: id)
            {}
        }
    }

    /// Runs deliveries of one function until the queue is empty (`true`: park, so the next
    /// event needs no new task), or until this drainer is to end (`false`: it timed out and was
    /// replaced, or the queue is empty and another drainer is parked already).
    ///
    /// Recording one attempt's end and taking the next delivery share one lock acquisition.
    func drain(lane index: Int, drainer id: UInt64) async -> Bool {
        let definition = lanes[index]
        // The attempt that just ended, and its error: two variables, as an optional tuple
        // holding an existential is copied through the runtime's generic witnesses.
        var finished: Job?
        var failure: (any Error)?
        while true {
            var effects = BusEffects()
            let next = state.withLock { state -> Next in
                defer { state.reportsInProgress += effects.reports.count + effects.finished.count }
                // One reading of the clock, under the lock as the timer's and waitUntilIdle's are,
                // serves the attempt that ended and the one that starts.
                let now = clock.now
                if let finished, finishAttempt(finished, failure: failure, now: now, in: &state, effects: &effects) {
                    return .stop
                }
                return nextJob(lane: index, drainer: id, now: now, in: &state, effects: &effects)
            }
            finishEffects(effects)
            finished = nil
            failure = nil
            let job: Job
            switch next {
            case .run(let next): job = next
            case .stop: return false
            case .park: return true
            }
            let context = EventContext(
                functionName: definition.name,
                event: job.event,
                trigger: definition.trigger,
                attempt: job.attempt,
                deadline: job.deadline,
                admin: admin,
                logger: logger
            )
            do {
                try await definition.handle(job.event, context)
            } catch {
                failure = error
            }
            finished = job
        }
    }

    private func nextJob(
        lane index: Int, drainer id: UInt64, now: Date, in state: inout BusState, effects: inout BusEffects
    ) -> Next {
        let limits = lanes[index].limits
        while var delivery = state.lanes[index].queue.popFirst() {
            switch delivery.machine.start(now: now, limits: limits) {
            case .expire:
                state.active -= 1
                giveUp(delivery, lane: index, reason: .expired, now: now, in: &state, effects: &effects)
            case .run(let attempt, let deadline):
                let attemptID = state.nextAttemptID
                state.nextAttemptID += 1
                state.lanes[index].running += 1
                let job = Job(attemptID: attemptID, event: delivery.event, attempt: attempt, deadline: deadline)
                state.inFlight[attemptID] = BusState.InFlight(lane: index, delivery: delivery, deadline: deadline, drainer: id)
                armTimer(for: deadline, in: &state)
                startDrainerIfNeeded(lane: index, in: &state, effects: &effects)
                return .run(job)
            }
        }
        state.takeIdleWaitersIfIdle(now: now, into: &effects.waiters)
        guard state.shuttingDown || state.lanes[index].parked != nil else { return .park }
        state.drainerEnded(lane: index)
        effects.waiters += state.takeDrainersGoneIfDone()
        return .stop
    }

    /// Waits, as the lane's one parked drainer, until work arrives (`true`) or the drainer is
    /// to end (`false`: the bus shuts down or goes away, the drainer is cancelled, or another
    /// one parked first). It holds the bus only to register. Whoever decides that it ends
    /// counts it out in the same locked section, so no moment exists where it is counted as a
    /// drainer that could take work yet is neither parked nor running.
    private static func park(_ bus: @Sendable () -> EventBus?, lane index: Int, drainer id: UInt64) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                guard let bus = bus() else { return continuation.resume(returning: false) }
                let (answer, gone) = bus.state.withLock { state -> (Bool?, [CheckedContinuation<Void, Never>]) in
                    if !state.lanes[index].queue.isEmpty { return (true, []) }
                    if state.shuttingDown || state.lanes[index].parked != nil || Task.isCancelled {
                        state.drainerEnded(lane: index)
                        return (false, state.takeDrainersGoneIfDone())
                    }
                    state.lanes[index].parked = BusState.Parked(drainer: id, continuation: continuation)
                    return (nil, [])
                }
                if let answer { continuation.resume(returning: answer) }
                for waiter in gone { waiter.resume() }
            }
        } onCancel: {
            let (parked, gone) = bus()?.state.withLock { state -> (BusState.Parked?, [CheckedContinuation<Void, Never>]) in
                guard let parked = state.lanes[index].parked, parked.drainer == id else { return (nil, []) }
                state.lanes[index].parked = nil
                state.drainerEnded(lane: index)
                return (parked, state.takeDrainersGoneIfDone())
            } ?? (nil, [])
            parked?.continuation.resume(returning: false)
            for waiter in gone { waiter.resume() }
        }
    }

    /// Records the end of an attempt; `true` when the attempt had already timed out, so the
    /// drainer that ran it has been replaced and must stop.
    private func finishAttempt(
        _ job: Job, failure: (any Error)?, now: Date, in state: inout BusState, effects: inout BusEffects
    ) -> Bool {
        guard let entry = state.inFlight.removeValue(forKey: job.attemptID) else { return true }
        state.lanes[entry.lane].running -= 1
        conclude(entry.delivery, lane: entry.lane, error: failure.map { "\($0)" }, now: now, in: &state, effects: &effects)
        return false
    }

    /// Applies the outcome of an attempt: done, retry later, or dead letter.
    func conclude(
        _ delivery: consuming Delivery, lane index: Int, error: String?, now: Date, in state: inout BusState,
        effects: inout BusEffects
    ) {
        delivery.lastError = error ?? delivery.lastError
        let action = delivery.machine.finish(
            succeeded: error == nil,
            now: now,
            limits: lanes[index].limits,
            random: error == nil ? 0 : configuration.random()
        )
        state.active -= 1
        switch action {
        case .done:
            if observed {
                effects.reports.append(report(delivery, lane: index, status: .succeeded, error: nil, now: now))
                finishDelivery(of: delivery.event, in: &state, effects: &effects)
            }
        case .retry(let due):
            effects.reports.append(report(delivery, lane: index, status: .willRetry(at: due), error: error, now: now))
            state.retries.insert(BusState.PendingRetry(due: due, lane: index, delivery: delivery))
            armTimer(for: due, in: &state)
        case .deadLetter(let reason):
            giveUp(delivery, lane: index, reason: reason, now: now, in: &state, effects: &effects)
        }
        state.takeIdleWaitersIfIdle(now: now, into: &effects.waiters)
    }

    private func giveUp(
        _ delivery: Delivery,
        lane index: Int,
        reason: DeadLetter.Reason,
        now: Date,
        in state: inout BusState,
        effects: inout BusEffects
    ) {
        let error = reason == .expired ? "the event is older than the function's maximum event age" : delivery.lastError
        state.addDeadLetter(DeadLetter(
            function: lanes[index].name,
            event: delivery.event,
            attempts: delivery.machine.attempts,
            lastError: error,
            reason: reason,
            time: now
        ))
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
        if !effects.reports.isEmpty || !effects.finished.isEmpty {
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
                state.reportsInProgress -= effects.reports.count + effects.finished.count
                state.takeIdleWaitersIfIdle(now: clock.now, into: &waiters)
            }
        }
        for waiter in waiters { waiter.resume() }
        for drainer in effects.wakeups { drainer.resume(returning: true) }
    }
}
