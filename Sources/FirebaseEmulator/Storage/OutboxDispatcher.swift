import CloudEvents
import CloudFunctions
import Foundation
import Logging
import Synchronization

/// Moves committed events from the outbox to the functions and marks them done.
///
/// Services hand it what each transaction emitted, right after the commit; at start-up it
/// publishes whatever an earlier run left undone. It observes the bus: each delivery's state
/// goes to the event log, and an event is marked done once every function it was queued for
/// has succeeded or given up on it. Until then it stays pending and is published again after
/// a restart: delivery is at least once.
public final class OutboxDispatcher: DeliveryObserver {
    private struct Pending {
        var sequence: Int64
        /// How many functions are still busy with the event; `nil` until the bus has said how
        /// many it queued the event for (a fast function can finish before that).
        var remaining: Int?
        /// Functions that finished before `remaining` was known.
        var finishedEarly = 0
    }

    private struct State {
        var bus: EventBus?
        /// Events published and not yet done.
        var inFlight: [String: Pending] = [:]
    }

    let store: EmulatorStore
    let logger: Logger
    private let state = Mutex(State())

    /// Creates a dispatcher for a store.
    public init(store: EmulatorStore, logger: Logger = Logger(label: "emulator.outbox")) {
        self.store = store
        self.logger = logger
    }

    /// Routes events to `bus` from now on; `nil` holds them in the outbox (no functions deployed).
    public func attach(_ bus: EventBus?) {
        state.withLock { $0.bus = bus }
    }

    /// Publishes newly committed events.
    public func publish(_ entries: [OutboxEntry]) {
        guard !entries.isEmpty, let bus = state.withLock({ $0.bus }) else { return }
        // Track the events before publishing: their deliveries may finish at once.
        let tracked = state.withLock { state in
            entries.map { entry -> Bool in
                let key = Self.key(entry.event)
                guard state.inFlight[key] == nil else { return false }
                state.inFlight[key] = Pending(sequence: entry.sequence)
                return true
            }
        }
        let results = bus.publish(contentsOf: entries.map(\.event))
        var done: [Int64] = []
        state.withLock { state in
            for ((entry, result), isTracked) in zip(zip(entries, results), tracked) where isTracked {
                let key = Self.key(entry.event)
                guard var pending = state.inFlight[key] else { continue }
                let remaining = result.duplicate ? 0 : result.functions.count - pending.finishedEarly
                if remaining <= 0 {
                    state.inFlight[key] = nil
                    done.append(entry.sequence)
                } else {
                    pending.remaining = remaining
                    state.inFlight[key] = pending
                }
            }
        }
        markDone(done)
    }

    /// Publishes every event an earlier run left undone, in commit order.
    ///
    /// - Returns: how many events were published.
    @discardableResult
    public func recoverPending() throws -> Int {
        var count = 0
        var after: Int64 = 0
        while true {
            let batch = try store.pendingEvents(after: after, limit: 1000)
            guard let last = batch.last else { return count }
            try store.markRecovered(batch.map(\.sequence))
            publish(batch)
            count += batch.count
            after = last.sequence
        }
    }

    public func deliveryFinished(_ report: DeliveryReport) {
        let key = report.eventSource + "\u{0}" + report.eventId
        var finishedSequence: Int64?
        let sequence = state.withLock { state -> Int64? in
            guard var pending = state.inFlight[key] else { return nil }
            if case .willRetry = report.status { return pending.sequence }
            if let remaining = pending.remaining {
                pending.remaining = remaining - 1
                if remaining - 1 == 0 {
                    state.inFlight[key] = nil
                    finishedSequence = pending.sequence
                    return pending.sequence
                }
            } else {
                pending.finishedEarly += 1
            }
            state.inFlight[key] = pending
            return pending.sequence
        }
        guard let sequence else { return }
        do {
            try store.recordDelivery(sequence: sequence, report: report)
        } catch {
            logger.error("could not record a delivery", metadata: ["error": "\(error)"])
        }
        if let finishedSequence { markDone([finishedSequence]) }
    }

    private func markDone(_ sequences: [Int64]) {
        do {
            try store.markDone(sequences)
        } catch {
            logger.error("could not mark events done", metadata: ["error": "\(error)"])
        }
    }

    private static func key(_ event: CloudEvent) -> String {
        event.source + "\u{0}" + event.id
    }
}
