import CloudEvents
import CloudFunctions
import Foundation
import Hummingbird
import NIOCore
import Synchronization

extension FunctionsWorker {
    /// The media type of a batch's answer: one JSON object per line.
    static let batchAnswerMediaType = "application/x-ndjson"

    /// Answers a batch of events for one function (`application/cloudevents-batch+json`, the
    /// CloudEvents HTTP binding's batched mode), which the emulator sends when several events for
    /// the same worker are ready at once: one request instead of one each.
    ///
    /// Every event runs at once, as if each had come alone, with its attempt from its `attempt`
    /// extension (the `ce-attempt` header of a single event). The answer is 200 and streams one
    /// line per event as soon as its outcome is known, so a slow handler delays no other event's
    /// answer: `{"index":0,"status":200}`, or with a `"message"`, the status a single event's
    /// answer would have had (200 not run, 400 refused, 500 failed). A body that is not a batch
    /// of events is 400, and none runs.
    func batchResponse(body: Data, function: CloudFunction, name: String, trigger: EventTrigger, delivery: Delivery)
        -> Response
    {
        let events: [CloudEvent]
        do {
            events = try CloudEvent.decodeBatch(jsonFormat: body)
        } catch {
            return text(.badRequest, "invalid batch of CloudEvents: \(error)")
        }
        // The answer is written after `invoke` returns (and leaves the gate): its events hold
        // the gate until the last line, so a shutdown waits for them. If the sender is gone
        // before the answer starts, none runs, and the hold goes with the unwritten body.
        let hold = gate.hold()
        return Response(status: .ok, headers: [.contentType: Self.batchAnswerMediaType], body: ResponseBody { writer in
            defer { hold.release() }
            var connected = true
            // Each event's line is added as its handler ends; whatever lines are ready when the
            // previous write is done go in one write, so under load the answer costs one write
            // for many events, and a lone event's line still goes at once.
            let ready = ReadyLines()
            await withTaskGroup(of: Void.self) { group in
                for (index, event) in events.enumerated() {
                    let attempt = event.extensions["attempt"].flatMap { Int($0.canonicalString) } ?? 1
                    group.addTask {
                        let outcome = await run(event, function: function, name: name, trigger: trigger, attempt: attempt,
                            delivery: delivery)
                        ready.add(Self.batchAnswerLine(index: index, outcome))
                    }
                }
                // Once the sender is gone the handlers still finish, as a single event's would.
                for await _ in group where connected {
                    let lines = ready.take()
                    guard !lines.isEmpty else { continue }
                    do {
                        try await writer.write(ByteBuffer(bytes: lines))
                    } catch {
                        connected = false
                    }
                }
            }
            if connected { try await writer.finish(nil) }
        })
    }

    /// The answer lines of a batch's events that ended and are not written yet.
    private final class ReadyLines: Sendable {
        private let lines = Mutex<[UInt8]>([])

        func add(_ line: [UInt8]) {
            lines.withLock { $0.append(contentsOf: line) }
        }

        /// The lines added since the last call, in the order their events ended.
        func take() -> [UInt8] {
            lines.withLock { lines in
                defer { lines = [] }
                return lines
            }
        }
    }

    /// One line of a batch's answer.
    static func batchAnswerLine(index: Int, _ outcome: Outcome) -> [UInt8] {
        var line = Array("{\"index\":\(index),\"status\":\(outcome.status)".utf8)
        switch outcome {
        case .ran: break
        case .skipped(let message), .refused(let message), .failed(let message):
            line.append(contentsOf: #","message":"#.utf8)
            CloudEvent.appendQuoted(message, to: &line)
        }
        line.append(contentsOf: "}\n".utf8)
        return line
    }
}
