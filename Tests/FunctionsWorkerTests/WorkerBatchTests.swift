import CloudEvents
import CloudFunctions
import FirebaseHTTP
import Foundation
import FunctionsWorker
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Functions worker: batches of events")
struct WorkerBatchTests {
    typealias Fixtures = WorkerFixtures

    static let batchHeaders: HTTPFields = [.contentType: CloudEvent.jsonBatchMediaType]

    /// The fixtures' database event, written at `ref`, as the emulator batches it (with its attempt).
    static func databaseEvent(ref: String, id: String, attempt: Int? = nil) throws -> CloudEvent {
        let fields = Fixtures.databaseHeaders.map { CloudEventHTTPMessage.Field(name: $0.name.canonicalName, value: $0.value) }
        var event = try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: fields, body: Data(Fixtures.databaseBody.utf8)))
        event.id = id
        event.extensions["ref"] = .string(ref)
        event.subject = "refs/" + ref
        if let attempt { event.extensions["attempt"] = .integer(attempt) }
        return event
    }

    static func remoteConfigEvent(id: String) throws -> CloudEvent {
        let fields = Fixtures.remoteConfigHeaders.map { CloudEventHTTPMessage.Field(name: $0.name.canonicalName, value: $0.value) }
        var event = try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: fields, body: Data(Fixtures.remoteConfigBody.utf8)))
        event.id = id
        return event
    }

    /// The answer's lines by index: (status, message).
    static func lines(_ body: String) throws -> [Int: (Int, String?)] {
        var answers: [Int: (Int, String?)] = [:]
        for line in body.split(separator: "\n") {
            let object = try #require(try JSONValue(parsing: String(line)).objectValue)
            let index = try #require(object["index"]?.numberValue.flatMap { Int(exactly: $0) })
            let status = try #require(object["status"]?.numberValue.flatMap { Int(exactly: $0) })
            #expect(answers[index] == nil, "index \(index) answered twice")
            answers[index] = (status, object["message"]?.stringValue)
        }
        return answers
    }

    @Test("runs every event of a batch and answers one line each, with the status its own answer would have")
    func outcomes() async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen))
        let batch = CloudEvent.encodeBatch(jsonFormat: [
            try Self.databaseEvent(ref: "items/abc", id: "e0", attempt: 3),
            try Self.databaseEvent(ref: "a/b/c", id: "e1"),
            try Self.remoteConfigEvent(id: "e2"),
            try Self.databaseEvent(ref: "scores/s1", id: "e3"),
        ])
        let response = try await WorkerEventTests.post("anywhere", headers: Self.batchHeaders,
            body: String(decoding: batch, as: UTF8.self), to: worker)
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/x-ndjson")
        let answers = try Self.lines(String(buffer: response.body))
        #expect(answers.keys.sorted() == [0, 1, 2, 3])
        #expect(answers[0]?.0 == 200 && answers[0]?.1 == nil)
        // Outside the path pattern: acknowledged, not run.
        #expect(answers[1]?.0 == 200)
        #expect(answers[1]?.1?.hasPrefix("not run: ") == true)
        // Of another type: refused, as a single event would be.
        #expect(answers[2]?.0 == 400)
        #expect(answers[2]?.1 == "the function 'anywhere' handles 'google.firebase.database.ref.v1.written' events, "
            + "not 'google.firebase.remoteconfig.remoteConfig.v1.updated'")
        #expect(answers[3]?.0 == 200)
        // The attempt comes from the event's `attempt` extension, 1 without one.
        #expect(seen.all.sorted() == ["params collection=items,id=abc attempt 3", "params collection=scores,id=s1 attempt 1"])
    }

    @Test("a handler that throws fails its own event of the batch with 500 and its message")
    func failures() async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen))
        let batch = CloudEvent.encodeBatch(jsonFormat: [try Self.remoteConfigEvent(id: "a"), try Self.remoteConfigEvent(id: "b")])
        let response = try await WorkerEventTests.post("fails", headers: Self.batchHeaders,
            body: String(decoding: batch, as: UTF8.self), to: worker)
        let answers = try Self.lines(String(buffer: response.body))
        #expect(answers.count == 2)
        #expect(answers.values.allSatisfy { $0.0 == 500 && $0.1 == "boom" })
    }

    @Test("a body that is not a batch of events is refused with 400 and runs nothing", arguments: [
        "[", "{}", #"[{"specversion":"1.0"}]"#,
    ])
    func malformed(body: String) async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen))
        let response = try await WorkerEventTests.post("anywhere", headers: Self.batchHeaders, body: body, to: worker)
        #expect(response.status == .badRequest)
        #expect(String(buffer: response.body).hasPrefix("invalid batch of CloudEvents: "))
        #expect(seen.all.isEmpty)
    }

    @Test("each event's line is written as soon as it finishes: a slow handler holds up no other event's answer",
        .timeLimit(.minutes(1)))
    func streamsAsEachFinishes() async throws {
        // The slow handler hands the test what lets it finish.
        let (slowStarted, started) = AsyncStream<CheckedContinuation<Void, Never>>.makeStream()
        var functions = FunctionRegistry()
        functions["config"] = RemoteConfig.onUpdate { _, context in
            guard context.eventId == "slow" else { return }
            await withCheckedContinuation { started.yield($0) }
        }
        let worker = try FunctionsWorker(functions: functions)
        let batch = CloudEvent.encodeBatch(jsonFormat: [try Self.remoteConfigEvent(id: "slow"), try Self.remoteConfigEvent(id: "fast")])
        try await Application(router: worker.router()).test(.live) { client in
            let url = URL(string: "http://127.0.0.1:\(try #require(client.port))/config")!
            let response = try await HTTPExchange.stream("POST", url,
                headers: [("Content-Type", CloudEvent.jsonBatchMediaType)], body: batch)
            #expect(response.status == 200)
            var lines: [String] = []
            try await response.forEachLine { line in
                lines.append(String(decoding: line, as: UTF8.self))
                // The slow event finishes only once the fast one's line has arrived.
                if lines.count == 1 {
                    for await finish in slowStarted {
                        finish.resume()
                        break
                    }
                }
            }
            #expect(lines == [#"{"index":1,"status":200}"#, #"{"index":0,"status":200}"#])
        }
    }
}
