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
    private struct State {
        var bus: EventBus?
        /// Events published and not yet done: the sequence and how many functions are still busy.
        var inFlight: [String: (sequence: Int64, remaining: Int)] = [:]
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
        let results = bus.publish(contentsOf: entries.map(\.event))
        var done: [Int64] = []
        state.withLock { state in
            for (entry, result) in zip(entries, results) where !result.duplicate {
                if result.functions.isEmpty {
                    done.append(entry.sequence)
                } else {
                    state.inFlight[Self.key(entry.event)] = (entry.sequence, result.functions.count)
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
            publish(batch)
            count += batch.count
            after = last.sequence
        }
    }

    public func deliveryFinished(_ report: DeliveryReport) {
        let key = report.eventSource + "\u{0}" + report.eventId
        var finishedSequence: Int64?
        let sequence = state.withLock { state -> Int64? in
            guard var entry = state.inFlight[key] else { return nil }
            if case .willRetry = report.status { return entry.sequence }
            entry.remaining -= 1
            if entry.remaining == 0 {
                state.inFlight[key] = nil
                finishedSequence = entry.sequence
            } else {
                state.inFlight[key] = entry
            }
            return entry.sequence
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
