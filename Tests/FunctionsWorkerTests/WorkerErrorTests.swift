import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import Foundation
import FunctionsWorker
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Functions worker: failures")
struct WorkerErrorTests {
    typealias Fixtures = WorkerFixtures

    struct Malformed: Sendable, CustomTestStringConvertible {
        var name: String
        var headers: HTTPFields
        var body: String
        var code: CloudEventError.Code
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = {
        var noSource = Fixtures.databaseHeaders
        noSource[HTTPField.Name("ce-source")!] = nil
        var oldSpec = Fixtures.remoteConfigHeaders
        oldSpec[HTTPField.Name("ce-specversion")!] = "0.3"
        var badTime = Fixtures.remoteConfigHeaders
        badTime[HTTPField.Name("ce-time")!] = "yesterday"
        let structured: HTTPFields = [.contentType: "application/cloudevents+json"]
        return [
            Malformed(name: "no ce-source", headers: noSource, body: Fixtures.databaseBody, code: .missingAttribute),
            Malformed(name: "specversion 0.3", headers: oldSpec, body: "{}", code: .unsupportedSpecVersion),
            Malformed(name: "bad ce-time", headers: badTime, body: "{}", code: .invalidTime),
            Malformed(name: "JSON data that is not JSON", headers: Fixtures.remoteConfigHeaders, body: "{not json",
                code: .invalidData),
            Malformed(name: "structured, not JSON", headers: structured, body: "{", code: .invalidJSON),
        ]
    }()

    @Test("answers 400 with the CloudEventError's message for a malformed CloudEvent", arguments: malformed)
    func malformedCloudEvent(_ example: Malformed) async throws {
        let fields = example.headers.map { CloudEventHTTPMessage.Field(name: $0.name.canonicalName, value: $0.value) }
        let error = #expect(throws: CloudEventError.self) {
            try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: fields, body: Data(example.body.utf8)))
        }
        #expect(error?.code == example.code)
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen))
        let response = try await WorkerEventTests.post("config", headers: example.headers, body: example.body,
            to: worker)
        #expect(response.status == .badRequest)
        #expect(String(buffer: response.body) == "invalid CloudEvent: \(error!)\n")
        #expect(seen.all.isEmpty)
    }

    struct Refused: Sendable, CustomTestStringConvertible {
        var name: String
        var function: String
        var headers: HTTPFields
        var body: String
        var message: String
        var testDescription: String { name }
    }

    static let refused: [Refused] = {
        var otherType = Fixtures.databaseHeaders
        otherType[HTTPField.Name("ce-type")!] = "x"
        var latin1 = Fixtures.remoteConfigHeaders
        latin1[.contentType] = "application/json; charset=ISO-8859-1"
        var user = Fixtures.remoteConfigHeaders
        user[HTTPField.Name("ce-type")!] = "google.firebase.auth.user.v1.created"
        user[HTTPField.Name("ce-source")!] = "//firebaseauth.googleapis.com/projects/demo"
        return [
            Refused(name: "another event type", function: "items", headers: otherType, body: Fixtures.databaseBody,
                message: "the function 'items' handles 'google.firebase.database.ref.v1.written' events, not 'x'"),
            Refused(name: "a charset other than UTF-8", function: "config", headers: latin1,
                body: Fixtures.remoteConfigBody, message: "charset 'iso-8859-1'"),
            Refused(name: "a user without a uid", function: "users", headers: user,
                body: #"{"email": "ada@example.com"}"#, message: "non-empty uid"),
            Refused(name: "a user with an empty uid", function: "users", headers: user,
                body: #"{"uid": "", "email": "ada@example.com"}"#, message: "non-empty uid"),
        ]
    }()

    @Test("answers 400, which brokers do not retry, and runs nothing for an event the function cannot take",
        arguments: refused)
    func refusedEvent(_ example: Refused) async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen))
        let response = try await WorkerEventTests.post(example.function, headers: example.headers,
            body: example.body, to: worker)
        #expect(response.status == .badRequest)
        #expect(String(buffer: response.body).contains(example.message), "\(String(buffer: response.body))")
        #expect(seen.all.isEmpty)
    }

    @Test("answers 400 for a body that is neither a CloudEvent nor a legacy event", arguments: [
        ("not json", "the body is not a JSON object"),
        (#"{"data": {}}"#, "eventType and eventId are required"),
        (#"{"eventType": "providers/nope", "eventId": "1", "data": {}}"#, "no CloudEvent type is known for it"),
    ])
    func malformedLegacy(body: String, reason: String) async throws {
        let worker = try FunctionsWorker(functions: Fixtures.functions(Fixtures.Seen()))
        let response = try await WorkerEventTests.post("config", headers: [.contentType: "application/json"],
            body: body, to: worker)
        #expect(response.status == .badRequest)
        let text = String(buffer: response.body)
        #expect(text.hasPrefix("invalid legacy event (no ce- headers): "))
        #expect(text.contains(reason))
    }

    @Test("a request with any ce- header, ce-attempt alone too, is read as a binary-mode CloudEvent")
    func ceAttemptAlone() async throws {
        let worker = try FunctionsWorker(functions: Fixtures.functions(Fixtures.Seen()))
        let legacy = #"{"eventType": "providers/firebase.auth/eventTypes/user.create", "eventId": "1", "data": {}}"#
        let response = try await WorkerEventTests.post("config",
            headers: [.contentType: "application/json", HTTPField.Name("ce-attempt")!: "2"], body: legacy, to: worker)
        #expect(response.status == .badRequest)
        #expect(String(buffer: response.body).hasPrefix("invalid CloudEvent: "))
    }

    @Test("answers 404 for an unknown function, naming the ones served")
    func unknownFunction() async throws {
        let worker = try FunctionsWorker(functions: Fixtures.functions(Fixtures.Seen()))
        let response = try await WorkerEventTests.post("nope", headers: Fixtures.databaseHeaders,
            body: Fixtures.databaseBody, to: worker)
        #expect(response.status == .notFound)
        #expect(String(buffer: response.body) == "no function named 'nope'; this worker serves: "
            + "items, gcf, config, fails, slow, users, anywhere, elsewhere\n")
    }

    @Test("answers 413 for an event over the body limit, without running the function")
    func tooLarge() async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen), maxBodySize: 16)
        let response = try await WorkerEventTests.post("items", headers: Fixtures.databaseHeaders,
            body: Fixtures.databaseBody, to: worker)
        #expect(response.status == .contentTooLarge)
        #expect(seen.all.isEmpty)
    }

    @Test("answers 500 with X-Google-Status: error when the handler throws")
    func handlerError() async throws {
        let worker = try FunctionsWorker(functions: Fixtures.functions(Fixtures.Seen()))
        let response = try await WorkerEventTests.post("fails", headers: Fixtures.remoteConfigHeaders,
            body: Fixtures.remoteConfigBody, to: worker)
        #expect(response.status == .internalServerError)
        #expect(response.headers[HTTPField.Name("X-Google-Status")!] == "error")
        #expect(String(buffer: response.body) == "boom\n")
    }

    @Test("cancels a handler that outlives its timeout and answers 500 with X-Google-Status: error")
    func timeout() async throws {
        let seen = Fixtures.Seen()
        let clock = ManualClock()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen, clock: clock), clock: clock)
        try await Application(router: worker.router()).test(.router) { client in
            async let answer = client.execute(uri: "/slow", method: .post, headers: Fixtures.remoteConfigHeaders,
                body: ByteBuffer(string: Fixtures.remoteConfigBody))
            // The handler and the timeout both sleep on the clock once the invocation runs.
            while clock.sleeperCount < 2 { await Task.yield() }
            clock.advance(by: .seconds(4))
            #expect(clock.sleeperCount == 2)
            clock.advance(by: .seconds(1))
            let response = try await answer
            #expect(response.status == .internalServerError)
            #expect(response.headers[HTTPField.Name("X-Google-Status")!] == "error")
            #expect(String(buffer: response.body) == "timed out after 5 s\n")
        }
        #expect(seen.all == ["slow started"])
        #expect(clock.sleeperCount == 0)
    }
}
