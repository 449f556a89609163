import CloudEvents
import CloudFunctions
@testable import EmulatorServer
import FirebaseHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// The emulator's side of batched delivery, against a stand-in worker that records what it
/// receives and can hold a batch: before answering (keeping the batch in transit), or after the
/// answer's start, before its lines.
@Suite("Event delivery: batches to a worker", .timeLimit(.minutes(1)))
struct DeliveryBatcherTests {
    /// One request the stand-in worker received.
    struct Received: Sendable {
        /// The event ids, in order.
        var ids: [String]
        /// Whether they came as a batch (else one binary-mode event).
        var batch: Bool
        /// The attempts: each event's `attempt` extension, or the `ce-attempt` header.
        var attempts: [String]
        /// Resumed by the test to let the answer go, when the worker holds it.
        var release: CheckedContinuation<Void, Never>?
    }

    enum Mode { case answer, holdFirstBatch, holdFirstAnswer, refuseBatches, shuttingDown }

    /// A worker that answers each event by its id: `fail` fails (500 "boom"), `skip` is not run
    /// (200), anything else runs (204).
    static func worker(_ mode: Mode, received: AsyncStream<Received>.Continuation) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("ping") { _, _ in HTTPResponse.Status.noContent }
        let heldOne = Mutex(false)
        router.post("fn") { request, _ -> Response in
            let body = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
            guard request.headers[.contentType] == CloudEvent.jsonBatchMediaType else {
                let id = request.headers[HTTPField.Name("ce-id")!] ?? ""
                received.yield(Received(ids: [id], batch: false, attempts: [request.headers[HTTPField.Name("ce-attempt")!] ?? ""]))
                return Response(status: id == "fail" ? .internalServerError : .noContent)
            }
            let events = try CloudEvent.decodeBatch(jsonFormat: body)
            let record = Received(ids: events.map(\.id), batch: true,
                attempts: events.map { $0.extensions["attempt"]?.canonicalString ?? "" })
            let first = heldOne.withLock { held in defer { held = true }; return !held }
            if mode == .holdFirstBatch, first {
                await withCheckedContinuation { continuation in
                    var held = record
                    held.release = continuation
                    received.yield(held)
                }
            } else if !(mode == .holdFirstAnswer && first) {
                received.yield(record)
            }
            switch mode {
            case .refuseBatches: return Response(status: .badRequest)
            case .shuttingDown:
                return Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "stopping\n")))
            case .answer, .holdFirstBatch, .holdFirstAnswer: break
            }
            var lines = ""
            for (index, event) in events.enumerated() {
                switch event.id {
                case "fail": lines += #"{"index":\#(index),"status":500,"message":"boom"}"# + "\n"
                case "skip": lines += #"{"index":\#(index),"status":200,"message":"not run: elsewhere"}"# + "\n"
                default: lines += #"{"index":\#(index),"status":204}"# + "\n"
                }
            }
            if mode == .holdFirstAnswer, first {
                // The answer starts at once; its lines wait until the test lets them go.
                let lines = lines
                return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: ResponseBody { writer in
                    await withCheckedContinuation { continuation in
                        var held = record
                        held.release = continuation
                        received.yield(held)
                    }
                    try await writer.write(ByteBuffer(string: lines))
                    try await writer.finish(nil)
                })
            }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"],
                body: .init(byteBuffer: ByteBuffer(string: lines)))
        }
        return router
    }

    static func event(_ id: String) -> CloudEvent {
        CloudEvent(id: id, source: "//test", type: "test.event", dataContentType: "application/json", data: Data("{}".utf8))
    }

    /// Runs `body` with a batcher posting to a stand-in worker, and the requests it receives.
    static func withWorker(
        _ mode: Mode, answerWait: Duration = .milliseconds(50),
        _ body: @escaping @Sendable (DeliveryBatcher, URL, inout AsyncStream<Received>.Iterator) async throws -> Void
    ) async throws {
        let (stream, received) = AsyncStream<Received>.makeStream()
        try await Application(router: worker(mode, received: received)).test(.live) { client in
            let base = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
            var requests = stream.makeAsyncIterator()
            try await body(DeliveryBatcher(function: "fn", clock: SystemClock(), answerWait: answerWait), base, &requests)
        }
    }

    static var deadline: Date { Date().addingTimeInterval(30) }

    @Test("events that come while a batch is in transit go together in the next, and each gets its own answer")
    func batchesWhatWaits() async throws {
        try await Self.withWorker(.holdFirstBatch) { batcher, base, requests in
            let first = batcher.enqueue(Self.event("a"), attempt: 1, deadline: Self.deadline, to: base)
            let held = try #require(await requests.next())
            #expect(held.ids == ["a"] && held.batch)
            let waiting = ["ok1", "fail", "skip", "ok2"].enumerated().map { index, id in
                (id, batcher.enqueue(Self.event(id), attempt: index + 2, deadline: Self.deadline, to: base))
            }
            held.release?.resume()
            let next = try #require(await requests.next())
            #expect(next.ids == ["ok1", "fail", "skip", "ok2"] && next.batch)
            #expect(next.attempts == ["2", "3", "4", "5"])

            #expect(try await batcher.answer(to: first).status == 204)
            var answers: [String: DeliveryBatcher.Answer] = [:]
            for (id, ticket) in waiting { answers[id] = try await batcher.answer(to: ticket) }
            #expect(answers["ok1"]?.status == 204 && answers["ok1"]?.skipped == false)
            #expect(answers["fail"]?.status == 500 && answers["fail"]?.message == "boom")
            #expect(answers["skip"]?.status == 200 && answers["skip"]?.skipped == true
                && answers["skip"]?.message == "not run: elsewhere")
            #expect(answers["ok2"]?.status == 204)
        }
    }

    /// Posts event "a" to a worker that holds its first batch's answer, and returns its ticket and
    /// the request the worker holds.
    static func postHeld(
        _ batcher: DeliveryBatcher, _ base: URL, _ requests: inout AsyncStream<Received>.Iterator
    ) async throws -> (Int, Received) {
        let ticket = batcher.enqueue(event("a"), attempt: 1, deadline: deadline, to: base)
        let held = try #require(await requests.next())
        #expect(held.ids == ["a"] && held.batch)
        return (ticket, held)
    }

    @Test("events that come while a batch is being answered wait for the whole answer, then go together")
    func waitsForTheWholeAnswer() async throws {
        try await Self.withWorker(.holdFirstAnswer, answerWait: .seconds(30)) { batcher, base, requests in
            let (first, held) = try await Self.postHeld(batcher, base, &requests)
            // The first batch's answer has begun. An exchange with the worker gives a sender that
            // posted at once (the rule before) the time to post "b" alone.
            let second = batcher.enqueue(Self.event("b"), attempt: 1, deadline: Self.deadline, to: base)
            _ = try await HTTPExchange.send("GET", base.appendingPathComponent("ping"), timeout: .seconds(30))
            let third = batcher.enqueue(Self.event("c"), attempt: 1, deadline: Self.deadline, to: base)
            held.release?.resume()
            let next = try #require(await requests.next())
            #expect(next.ids == ["b", "c"] && next.batch)
            for ticket in [first, second, third] { #expect(try await batcher.answer(to: ticket).status == 204) }
        }
    }

    @Test("events that come while a batch's answer is slow wait no longer than the answer wait, then go")
    func slowAnswerStopsHoldingBack() async throws {
        try await Self.withWorker(.holdFirstAnswer, answerWait: .milliseconds(10)) { batcher, base, requests in
            let (first, held) = try await Self.postHeld(batcher, base, &requests)
            // The first batch's answer has begun and its line is held: the next event still goes.
            let second = batcher.enqueue(Self.event("b"), attempt: 1, deadline: Self.deadline, to: base)
            let next = try #require(await requests.next())
            #expect(next.ids == ["b"] && next.batch)
            #expect(try await batcher.answer(to: second).status == 204)
            held.release?.resume()
            #expect(try await batcher.answer(to: first).status == 204)
        }
    }

    @Test("a batch the worker refuses goes again one event at a time, in binary mode with ce-attempt")
    func fallsBackToSingleEvents() async throws {
        try await Self.withWorker(.refuseBatches) { batcher, base, requests in
            let answer = try await batcher.send(Self.event("fail"), attempt: 3, deadline: Self.deadline, to: base)
            #expect(answer.status == 500)
            let batch = try #require(await requests.next())
            #expect(batch.batch && batch.ids == ["fail"])
            let single = try #require(await requests.next())
            #expect(!single.batch && single.ids == ["fail"] && single.attempts == ["3"])
        }
    }

    @Test("a worker shutting down answers every event of the batch 503")
    func shuttingDown() async throws {
        try await Self.withWorker(.shuttingDown) { batcher, base, _ in
            let answer = try await batcher.send(Self.event("a"), attempt: 1, deadline: Self.deadline, to: base)
            #expect(answer.status == 503 && answer.message == "stopping")
        }
    }

    @Test("an event whose caller is cancelled before it is posted is not posted")
    func cancelledEventsStay() async throws {
        try await Self.withWorker(.holdFirstBatch) { batcher, base, requests in
            let first = batcher.enqueue(Self.event("a"), attempt: 1, deadline: Self.deadline, to: base)
            let held = try #require(await requests.next())
            let abandoned = batcher.enqueue(Self.event("abandoned"), attempt: 1, deadline: Self.deadline, to: base)
            let waiter = Task { try await batcher.answer(to: abandoned) }
            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }
            held.release?.resume()
            #expect(try await batcher.answer(to: first).status == 204)
            // The next request carries only the event queued after.
            let later = batcher.enqueue(Self.event("later"), attempt: 1, deadline: Self.deadline, to: base)
            #expect(try await batcher.answer(to: later).status == 204)
            #expect(try #require(await requests.next()).ids == ["later"])
        }
    }

    @Test("no answer at all (nothing listens) fails each event with the connection's error")
    func unreachable() async throws {
        let batcher = DeliveryBatcher(function: "fn", clock: SystemClock())
        // A port that was just listening and is closed now.
        let closed = try await Application(router: Router()).test(.live) { client in client.port }
        let base = URL(string: "http://127.0.0.1:\(try #require(closed))")!
        await #expect(throws: (any Error).self) {
            try await batcher.send(Self.event("a"), attempt: 1, deadline: Self.deadline, to: base)
        }
    }
}
