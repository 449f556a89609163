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
        /// Outcomes reported and not yet written.
        var pending: [EmulatorStore.Outcome] = []
        /// Whether a caller is writing the pending outcomes.
        var recording = false
        /// How many outcomes were reported, and how many of them written (or given up on when
        /// the store failed): they are written in the order they were reported.
        var reported = 0
        var written = 0
        /// Events marked done since the event log was last pruned.
        var doneSincePruning = 0
        /// The outbox entries published to the attached bus since it was attached, until the
        /// recovery that follows an attach has run: those went to the bus already, and must not
        /// be recovered too even when they finished before their done mark was written.
        var publishedSinceAttach: Set<Int64>?
        /// Callers of ``waitUntilRecorded()``, each with the count of outcomes it waits for.
        var recordedWaiters: [(upTo: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let store: EmulatorStore
    let logger: Logger
    /// How many of the newest events the event log keeps once they are done.
    let eventLogSize: Int
    /// How long reported outcomes wait for others to join their commit.
    let recordingDelay = Duration.milliseconds(2)
    private let state = Mutex(State())
    /// Wakes ``run()`` when outcomes wait to be written.
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// Creates a dispatcher for a store.
    ///
    /// - Parameters:
    ///   - store: the store whose outbox it dispatches.
    ///   - eventLogSize: how many of the newest events the event log keeps once they are done;
    ///     older ones are deleted as new ones finish (every tenth of this count, at most every
    ///     1,000 events). Events not done are always kept.
    ///   - logger: where failures to record go.
    public init(store: EmulatorStore, eventLogSize: Int = 100_000, logger: Logger = Logger(label: "emulator.outbox")) {
        self.store = store
        self.eventLogSize = max(0, eventLogSize)
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Writes reported outcomes until cancelled (then once more, so that nothing reported is
    /// left unwritten).
    func run() async {
        for await _ in wakeups {
            // A moment for the outcomes of other deliveries to join the commit.
            try? await Task.sleep(for: recordingDelay)
            await writePending()
        }
        await writePending()
    }

    /// Routes events to `bus` from now on; `nil` holds them in the outbox (no functions deployed).
    public func attach(_ bus: EventBus?) {
        state.withLock { state in
            state.bus = bus
            state.publishedSinceAttach = bus == nil ? nil : []
        }
    }

    /// Publishes newly committed events.
    public func publish(_ entries: [OutboxEntry]) {
        guard !entries.isEmpty, let bus = state.withLock({ $0.bus }) else { return }
        // Track the entries before publishing: the bus may finish their events at once.
        state.withLock { state in
            for entry in entries {
                state.inFlight[entry.event.key, default: []].append(entry.sequence)
                state.publishedSinceAttach?.insert(entry.sequence)
            }
        }
        bus.publish(contentsOf: entries.map(\.event))
    }

    /// Replays a dead letter of the attached bus, tracking its event again (found in the outbox,
    /// or stored again when the event log has pruned it) so that the new attempts reach the
    /// event log. Its outbox entry is pending again until
    /// the replay is done: if the emulator stops (or is redeployed) first, the event is
    /// published again, as any event not done is.
    ///
    /// The bus lists a dead letter once it has told this dispatcher the event is finished; the
    /// replay waits for that done mark to be written, so the mark cannot land on the pending
    /// entry after it.
    ///
    /// - Returns: whether the bus had a dead letter with that id.
    public func replayDeadLetter(id: String) async throws -> Bool {
        guard let bus = state.withLock({ $0.bus }), bus.deadLetters.contains(where: { $0.id == id }) else {
            return false
        }
        await waitUntilRecorded()
        guard let letter = bus.deadLetters.first(where: { $0.id == id }) else { return false }
        let key = letter.event.key
        var tracked = false
        if state.withLock({ $0.inFlight[key] == nil }) {
            // In one transaction, so that pruning the event log cannot come in between.
            let sequence = try await store.reopen(letter.event)
            state.withLock { $0.inFlight[key] = [sequence] }
            tracked = true
        }
        guard bus.replayDeadLetter(id: id) else {
            if tracked {
                // Not replayed after all: done again, as the dead letter had left it.
                let sequences = state.withLock { $0.inFlight.removeValue(forKey: key) }
                if let sequences { record(.done(sequences, at: Date())) }
            }
            return false
        }
        return true
    }

    /// Publishes every event an earlier run left undone, in commit order: those not done in
    /// the outbox up to `sequence` (all, when `nil`). Events committed later went to the bus
    /// attached then; chasing them too would never end under a steady stream of writes.
    ///
    /// - Returns: how many events were published.
    @discardableResult
    public func recoverPending(through sequence: Int64? = nil) async throws -> Int {
        var count = 0
        var after: Int64 = 0
        // From now on the attached bus gets every event live.
        defer { state.withLock { $0.publishedSinceAttach = nil } }
        while true {
            var batch = try store.pendingEvents(after: after, limit: 1000)
            if let sequence { batch.removeAll { $0.sequence > sequence } }
            guard let last = batch.last else { return count }
            // Committed after the attach, they went to the bus live (and may be done already,
            // their done mark not yet written).
            let live = state.withLock { $0.publishedSinceAttach ?? [] }
            batch.removeAll { live.contains($0.sequence) }
            after = last.sequence
            guard !batch.isEmpty else { continue }
            try await store.markRecovered(batch.map(\.sequence))
            publish(batch)
            count += batch.count
        }
    }

    public func deliveryFinished(_ report: DeliveryReport) {
        let key = CloudEvent.Key(source: report.eventSource, id: report.eventId)
        // Another function's drainer may have told that the event is finished (and so stopped
        // tracking it) before this report arrived: the outbox still knows its sequence.
        guard let sequence = state.withLock({ $0.inFlight[key]?.first }) ?? (try? store.latestSequence(of: key))
        else { return }
        record(.delivery(sequence: sequence, report))
    }

    public func eventFinished(_ key: CloudEvent.Key) {
        guard let sequences = state.withLock({ $0.inFlight.removeValue(forKey: key) }) else { return }
        record(.done(sequences, at: Date()))
    }

    /// Returns once every outcome reported so far is written to the store (outcomes reported
    /// meanwhile, under load, are not waited for).
    public func waitUntilRecorded() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let recorded = state.withLock { state -> Bool in
                guard state.written < state.reported else { return true }
                state.recordedWaiters.append((state.reported, continuation))
                return false
            }
            if recorded { continuation.resume() }
        }
    }

    /// Writes outcomes by group commit: the first outcome with no write under way wakes
    /// ``run()``, which waits a moment (`recordingDelay`) so that the outcomes of other
    /// deliveries join it, writes them in one transaction, and goes on until nothing is left.
    /// Under load one commit carries many outcomes instead of one commit each; the event log
    /// lags by about the delay, and ``waitUntilRecorded()`` waits for the writer.
    private func record(_ outcome: EmulatorStore.Outcome) {
        let starts = state.withLock { state -> Bool in
            state.pending.append(outcome)
            state.reported += 1
            guard !state.recording else { return false }
            state.recording = true
            return true
        }
        if starts { wake.yield() }
    }

    /// Deletes the oldest finished events once enough have finished since the last time.
    private func pruneIfDue(after batch: [EmulatorStore.Outcome]) async {
        let done = batch.reduce(0) { count, outcome in
            if case .done(let sequences, _) = outcome { count + sequences.count } else { count }
        }
        let interval = min(1000, max(1, eventLogSize / 10))
        let due = state.withLock { state -> Bool in
            state.doneSincePruning += done
            guard state.doneSincePruning >= interval else { return false }
            state.doneSincePruning = 0
            return true
        }
        guard due else { return }
        do {
            try await store.pruneEventLog(keeping: eventLogSize)
        } catch {
            logger.error("could not prune the event log", metadata: ["error": "\(error)"])
        }
    }

    private func writePending() async {
        while true {
            let batch = state.withLock { state -> [EmulatorStore.Outcome] in
                if state.pending.isEmpty { state.recording = false }
                defer { state.pending = [] }
                return state.pending
            }
            guard !batch.isEmpty else { return }
            do {
                try await store.record(batch)
            } catch {
                logger.error("could not record deliveries", metadata: ["error": "\(error)", "outcomes": "\(batch.count)"])
            }
            await pruneIfDue(after: batch)
            let recorded = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.written += batch.count
                let written = state.written
                defer { state.recordedWaiters.removeAll { $0.upTo <= written } }
                return state.recordedWaiters.filter { $0.upTo <= written }.map(\.continuation)
            }
            for waiter in recorded { waiter.resume() }
        }
    }
}
