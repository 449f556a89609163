import CloudEvents
import CloudFunctions
import FunctionsBus
import Foundation
import Logging
import Synchronization

/// Moves committed events from the outbox to the functions and marks them done.
///
/// Services hand it what each transaction emitted, right after the commit; at start-up it
/// publishes whatever an earlier run left undone. It observes the bus: each delivery's state
/// goes to the event log, and an event is marked done when the bus says it is finished for
/// every function it was queued for. Until then it stays pending and is published again
/// after a restart: delivery is at least once.
package final class OutboxDispatcher: DeliveryObserver {
    private struct State {
        var bus: EventBus?
        /// The outbox entries of each event published and not yet finished (a duplicate
        /// committed again joins the entry in flight).
        var inFlight: [CloudEvent.Key: [Int64]] = [:]
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
        // Track the entries before publishing: the bus may finish their events at once.
        state.withLock { state in
            for entry in entries { state.inFlight[entry.event.key, default: []].append(entry.sequence) }
        }
        bus.publish(contentsOf: entries.map(\.event))
    }

    /// Replays a dead letter of the attached bus, tracking its event again (found in the outbox)
    /// so that the new attempts reach the event log.
    ///
    /// - Returns: whether the bus had a dead letter with that id.
    public func replayDeadLetter(id: String) throws -> Bool {
        guard let bus = state.withLock({ $0.bus }), let letter = bus.deadLetters.first(where: { $0.id == id }) else {
            return false
        }
        let key = letter.event.key
        var tracked = false
        if state.withLock({ $0.inFlight[key] == nil }), let sequence = try store.latestSequence(of: key) {
            state.withLock { $0.inFlight[key] = [sequence] }
            tracked = true
        }
        guard bus.replayDeadLetter(id: id) else {
            if tracked { state.withLock { $0.inFlight[key] = nil } }
            return false
        }
        return true
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
        let key = CloudEvent.Key(source: report.eventSource, id: report.eventId)
        guard let sequence = state.withLock({ $0.inFlight[key]?.first }) else { return }
        do {
            try store.recordDelivery(sequence: sequence, report: report)
        } catch {
            logger.error("could not record a delivery", metadata: ["error": "\(error)"])
        }
    }

    public func eventFinished(_ key: CloudEvent.Key) {
        guard let sequences = state.withLock({ $0.inFlight.removeValue(forKey: key) }) else { return }
        do {
            try store.markDone(sequences)
        } catch {
            logger.error("could not mark events done", metadata: ["error": "\(error)"])
        }
    }
}
