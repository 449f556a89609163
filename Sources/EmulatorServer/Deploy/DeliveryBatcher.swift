import CloudEvents
import CloudFunctions
import FirebaseHTTP
import Foundation
import Synchronization

/// Posts one function's events to its worker processes, as many in one request as are ready
/// for the same process.
///
/// Events go as CloudEvents batches (`application/cloudevents-batch+json`), each with its
/// attempt as its `attempt` extension. The worker answers a batch at once and streams one line
/// per event as each handler finishes, so a slow handler holds up no other event's answer.
/// A worker's next batch is posted once the one before it is answered for every event, or
/// ``answerWait`` after that answer began (a slow handler), whichever comes first; the events
/// that come meanwhile wait and go together in it. So at most one batch per worker is posted
/// and not yet begun to be answered, and under load each worker answers a few large batches
/// rather than many small ones. An event that comes alone goes at once, alone.
///
/// With a maximum batch of 1 every event goes alone, in binary mode, as Eventarc sends it.
///
/// A batch a worker refuses as a whole (a functions binary built before batches answers 400)
/// goes again one event at a time, in binary mode, as Eventarc sends them; a 503 (shutting
/// down) is every event's answer.
final class DeliveryBatcher: Sendable {
    /// A worker's answer for one event.
    struct Answer: Sendable {
        /// The status the worker answered the event with.
        var status: Int
        /// Why it was not run or failed, as the worker said it.
        var message: String
        /// Whether the worker acknowledged the event without running it (outside the trigger).
        var skipped: Bool
    }

    private struct Pending {
        let id: Int
        let event: CloudEvent
        let attempt: Int
        /// The delivery attempt's span, which the worker's invocation continues.
        let trace: TraceParent?
        let deadline: Date
    }

    /// Where one queued event's answer stands.
    private enum Entry {
        /// Nobody waits yet, and no answer came.
        case queued
        /// A caller waits for the answer.
        case waiting(CheckedContinuation<Answer, any Error>)
        /// The answer came before its caller asked.
        case answered(Result<Answer, any Error>)
    }

    private struct State {
        /// The events waiting to be posted, by worker address.
        var queues: [URL: [Pending]] = [:]
        /// The workers with a sender posting their queue.
        var sending: Set<URL> = []
        /// Each event queued and not yet answered to its caller, by id. A cancelled caller's
        /// event has none: it is not posted, and its answer is dropped.
        var entries: [Int: Entry] = [:]
        var nextID = 0
    }

    /// The function the events go to (`POST {base}/{function}`).
    let function: String
    /// The clock deadlines are compared with.
    let clock: any BusClock
    /// The most events in one request.
    let maximumBatch: Int
    /// How long, from the start of its answer, the next batch for a worker waits for the one
    /// before it to be answered in full. Waiting for the whole answer, not only its start, lets
    /// more events gather (with the sample `onScoreWrite` under load: 6 events a batch before,
    /// and about 11 % less CPU per event); the limit keeps a slow handler from holding the
    /// worker's later events back for longer than this.
    let answerWait: Duration
    private let state = Mutex(State())

    init(function: String, clock: any BusClock, maximumBatch: Int = 64, answerWait: Duration = .milliseconds(50)) {
        self.function = function
        self.clock = clock
        self.maximumBatch = max(1, maximumBatch)
        self.answerWait = answerWait
    }

    /// Posts `event` to the worker at `base` and returns its answer.
    ///
    /// - Throws: AsyncHTTPClient's error when the worker does not answer (refused, reset, past
    ///   the deadline); `CancellationError` when the calling task is cancelled first.
    func send(_ event: CloudEvent, attempt: Int, trace: TraceParent? = nil, deadline: Date, to base: URL)
        async throws -> Answer
    {
        let pending = Pending(id: 0, event: event, attempt: attempt, trace: trace, deadline: deadline)
        guard maximumBatch > 1 else { return try await postAlone(pending, to: base) }
        return try await answer(to: enqueue(pending, to: base))
    }

    /// Queues `event` for the worker at `base` and returns its id, whose answer
    /// ``answer(to:)`` waits for.
    func enqueue(_ event: CloudEvent, attempt: Int, deadline: Date, to base: URL) -> Int {
        enqueue(Pending(id: 0, event: event, attempt: attempt, trace: nil, deadline: deadline), to: base)
    }

    private func enqueue(_ pending: Pending, to base: URL) -> Int {
        let (id, startsSender) = state.withLock { state -> (Int, Bool) in
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = .queued
            state.queues[base, default: []].append(Pending(id: id, event: pending.event, attempt: pending.attempt,
                trace: pending.trace, deadline: pending.deadline))
            return (id, state.sending.insert(base).inserted)
        }
        if startsSender { Task { await self.postQueue(of: base) } }
        return id
    }

    /// Waits for the answer of a queued event. Cancelling the calling task abandons the event:
    /// it is not posted if it has not been yet.
    func answer(to id: Int) async throws -> Answer {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<Answer, any Error>? in
                    switch state.entries[id] {
                    case .answered(let answer):
                        state.entries[id] = nil
                        return answer
                    case .queued? where !Task.isCancelled:
                        state.entries[id] = .waiting(continuation)
                        return nil
                    default:
                        // Cancelled (before or while asking).
                        state.entries[id] = nil
                        return .failure(CancellationError())
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Answer, any Error>? in
                guard case .waiting(let waiter) = state.entries.removeValue(forKey: id) else { return nil }
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// The sender of `base`: posts what waits, a batch at a time, each once the one before it
    /// is answered (or ``answerWait`` after its answer began), until nothing waits.
    private func postQueue(of base: URL) async {
        while true {
            let batch = state.withLock { state -> [Pending]? in
                let queue = (state.queues.removeValue(forKey: base) ?? []).filter { state.entries[$0.id] != nil }
                guard !queue.isEmpty else {
                    state.sending.remove(base)
                    return nil
                }
                if queue.count > maximumBatch { state.queues[base] = Array(queue[maximumBatch...]) }
                return Array(queue.prefix(maximumBatch))
            }
            guard let batch else { return }
            await post(batch, to: base)
        }
    }

    /// Posts a batch and returns once the worker has answered every event, or ``answerWait``
    /// after its answer began (or when it failed); the answer's lines are read by a task of
    /// their own.
    private func post(_ batch: [Pending], to base: URL) async {
        // Each event's attempt and the span of its delivery (a lone event's travel as headers).
        let body = CloudEvent.encodeBatch(jsonFormat: batch.map { pending in
            var members: [(name: String, value: CloudEventAttributeValue)] = [("attempt", .integer(pending.attempt))]
            // Only a sampled trace's: for an unsampled one the worker makes no span, and the event's
            // own traceparent names the trace as well.
            if let trace = pending.trace, trace.sampled {
                members.append(("deliverytraceparent", .string(trace.description)))
            }
            return (pending.event, members)
        })
        do {
            let response = try await HTTPExchange.stream("POST", base.appendingPathComponent(function),
                headers: [("Content-Type", CloudEvent.jsonBatchMediaType)], body: body,
                timeout: timeout(until: batch.map(\.deadline).max()!))
            if response.status == 200 {
                await Self.run(atMost: answerWait) { await self.readAnswers(response, for: batch) }
                return
            }
            let message = Self.message(try await response.collect(upTo: 64 * 1024))
            if response.status == 503 {
                for pending in batch { resume(pending.id, with: .success(Answer(status: 503, message: message, skipped: false))) }
                return
            }
            // Not a worker that takes batches (or not this one): one by one.
            for pending in batch { Task { await self.postAloneAnswering(pending, to: base) } }
        } catch {
            for pending in batch { resume(pending.id, with: .failure(error)) }
        }
    }

    /// Hands each line of a batch's answer to its event's waiter as it arrives.
    private func readAnswers(_ response: HTTPExchange.StreamedResponse, for batch: [Pending]) async {
        var answered = Set<Int>()
        do {
            try await response.forEachLine { line in
                if let (index, answer) = Self.answer(line), batch.indices.contains(index), answered.insert(index).inserted {
                    resume(batch[index].id, with: .success(answer))
                }
            }
            for (index, pending) in batch.enumerated() where !answered.contains(index) {
                resume(pending.id, with: .failure(WorkerError(message: "the worker's answer to a batch of events left this one out")))
            }
        } catch {
            // The worker died or the deadline passed mid-answer.
            for (index, pending) in batch.enumerated() where !answered.contains(index) {
                resume(pending.id, with: .failure(error))
            }
        }
    }

    /// Runs `body` on a task of its own and returns when it ends or once `limit` has passed,
    /// whichever comes first.
    private static func run(atMost limit: Duration, _ body: @escaping @Sendable () async -> Void) async {
        await withCheckedContinuation { continuation in
            let done = ResumeOnce(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                done.resume()
            }
            Task {
                await body()
                done.resume()
                timer.cancel()
            }
        }
    }

    /// A continuation resumed by whichever of its resumers comes first.
    private final class ResumeOnce: Sendable {
        private let continuation: Mutex<CheckedContinuation<Void, Never>?>

        init(_ continuation: CheckedContinuation<Void, Never>) {
            self.continuation = Mutex(continuation)
        }

        func resume() {
            continuation.withLock { $0.take() }?.resume()
        }
    }

    /// Posts one queued event in binary mode.
    private func postAloneAnswering(_ pending: Pending, to base: URL) async {
        do {
            let answer = try await postAlone(pending, to: base)
            resume(pending.id, with: .success(answer))
        } catch {
            resume(pending.id, with: .failure(error))
        }
    }

    /// Posts one event in binary mode, as Eventarc does: its delivery's span in `traceparent`.
    private func postAlone(_ pending: Pending, to base: URL) async throws -> Answer {
        let message = pending.event.binaryHTTPMessage()
        var headers = message.headers.map { ($0.name, $0.value) } + [("ce-attempt", String(pending.attempt))]
        if let trace = pending.trace { headers.append(("traceparent", trace.description)) }
        let response = try await HTTPExchange.send("POST", base.appendingPathComponent(function), headers: headers,
            body: message.body, timeout: timeout(until: pending.deadline))
        return Answer(status: response.status, message: Self.message(response.body),
            skipped: response.headers["x-functions-skipped"] == "true")
    }

    private func resume(_ id: Int, with result: Result<Answer, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Answer, any Error>? in
            switch state.entries[id] {
            case .queued?:
                state.entries[id] = .answered(result)
                return nil
            case .waiting(let waiter)?:
                state.entries[id] = nil
                return waiter
            case .answered?, nil:
                return nil
            }
        }
        waiter?.resume(with: result)
    }

    /// Time until `deadline` on the bus clock, at least a second.
    private func timeout(until deadline: Date) -> Duration {
        .seconds(max(1, deadline.timeIntervalSince(clock.now)))
    }

    /// The start of an answer's body, as text.
    private static func message(_ body: Data) -> String {
        String(decoding: body.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// One line of a batch's answer: `{"index": 0, "status": 200}`, with a `message` for events
    /// not run or failed (a 200 with a message was not run).
    private static func answer(_ line: [UInt8]) -> (Int, Answer)? {
        guard let object = (try? JSONValue(parsing: Data(line)))?.objectValue,
            let index = object["index"]?.numberValue.flatMap({ Int(exactly: $0) }),
            let status = object["status"]?.numberValue.flatMap({ Int(exactly: $0) })
        else { return nil }
        let message = object["message"]?.stringValue.map { String($0.prefix(500)) } ?? ""
        return (index, Answer(status: status, message: message, skipped: status == 200 && !message.isEmpty))
    }
}
