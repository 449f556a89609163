import CloudEvents
import CloudFunctions
import Foundation
import FunctionsWorker
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Functions worker: events in")
struct WorkerEventTests {
    typealias Fixtures = WorkerFixtures

    /// Posts `body` to `/{function}` on a socketless worker and returns the answer.
    static func post(
        _ function: String,
        headers: HTTPFields,
        body: String,
        to worker: FunctionsWorker
    ) async throws -> TestResponse {
        try await Application(router: worker.router()).test(.router) { client in
            try await client.execute(
                uri: "/\(function)", method: .post, headers: headers, body: ByteBuffer(string: body))
        }
    }

    @Test("runs a database function for the consumer-accepted binary-mode event and answers 200")
    func binaryDatabase() async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen))
        let response = try await Self.post("items", headers: Fixtures.databaseHeaders, body: Fixtures.databaseBody,
            to: worker)
        #expect(response.status == .ok)
        #expect(seen.all == [#"abc {"count":2,"name":"old","tag":"x"}"#])
    }

    @Test("runs a Remote Config function for the consumer-accepted binary-mode event")
    func binaryRemoteConfig() async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen))
        let response = try await Self.post("config", headers: Fixtures.remoteConfigHeaders,
            body: Fixtures.remoteConfigBody, to: worker)
        #expect(response.status == .ok)
        #expect(seen.all == ["v5 bench-rc-0001"])
    }

    @Test("runs functions for structured-mode events, hand-written and encoded", arguments: [
        "application/cloudevents+json", "application/cloudevents+json; charset=utf-8",
    ])
    func structured(contentType: String) async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen))
        let rc = try await Self.post("config", headers: [.contentType: contentType],
            body: Fixtures.remoteConfigStructured, to: worker)
        #expect(rc.status == .ok)

        // The database vector, re-encoded in structured mode.
        let fields = Fixtures.databaseHeaders.map {
            CloudEventHTTPMessage.Field(name: $0.name.canonicalName, value: $0.value)
        }
        let event = try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: fields,
            body: Data(Fixtures.databaseBody.utf8)))
        let db = try await Self.post("items", headers: [.contentType: contentType],
            body: String(decoding: event.jsonFormat(), as: UTF8.self), to: worker)
        #expect(db.status == .ok)
        #expect(seen.all == ["v5 bench-rc-0001", #"abc {"count":2,"name":"old","tag":"x"}"#])
    }

    @Test("runs functions for legacy background events, nested and flat")
    func legacy() async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen))
        let json: HTTPFields = [.contentType: "application/json"]
        let nested = try await Self.post("config", headers: json, body: Fixtures.legacyNested, to: worker)
        #expect(nested.status == .ok)
        let flat = try await Self.post("gcf", headers: json, body: Fixtures.legacyFlat, to: worker)
        #expect(flat.status == .ok)
        #expect(seen.all == ["v6 legacy-1", #"xyz {"grandchild":"other"}"#])
    }

    @Test("takes the attempt from ce-attempt, 1 without it")
    func attempt() async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen))
        var headers = Fixtures.databaseHeaders
        headers[HTTPField.Name("ce-attempt")!] = "3"
        let third = try await Self.post("anywhere", headers: headers, body: Fixtures.databaseBody, to: worker)
        #expect(third.status == .ok)
        headers[HTTPField.Name("ce-attempt")!] = "not a number"
        _ = try await Self.post("anywhere", headers: headers, body: Fixtures.databaseBody, to: worker)
        #expect(seen.all == ["params collection=items,id=abc attempt 3", "params collection=items,id=abc attempt 1"])
    }

    @Test("acknowledges without running an event outside the function's path pattern or filters")
    func unmatchedEventIsSkipped() async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen), target: "elsewhere")
        // `elsewhere` triggers on /elsewhere/{id}; the event is at /items/abc. A broker that
        // filters only on the type (Knative) delivers it anyway; the worker filters the rest.
        for path in ["elsewhere", "/"] {
            let response = try await Self.post(path, headers: Fixtures.databaseHeaders,
                body: Fixtures.databaseBody, to: worker)
            #expect(response.status == .ok)
            #expect(response.headers[HTTPField.Name("X-Functions-Skipped")!] == "true")
            #expect(String(buffer: response.body).contains("ref 'items/abc' does not match 'elsewhere/{id}'"))
        }
        var otherInstance = Fixtures.databaseHeaders
        otherInstance[HTTPField.Name("ce-ref")!] = "elsewhere/abc"
        let matching = try await Self.post("elsewhere", headers: otherInstance, body: Fixtures.databaseBody, to: worker)
        #expect(matching.status == .ok)
        #expect(seen.all == ["elsewhere ran"])
    }
}

@Suite("Functions worker: schedules fired by Cloud Scheduler and Knative")
struct WorkerScheduleTests {
    static func worker(_ seen: WorkerFixtures.Seen) throws -> FunctionsWorker {
        var functions = FunctionRegistry()
        functions["nightlyDigest"] = Scheduler.cron("0 3 * * *").onRun { event, _ in
            seen.add("\(event.jobName) \(RFC3339Timestamp.string(from: event.scheduleTime))")
        }
        return try FunctionsWorker(functions: functions)
    }

    @Test("Cloud Scheduler's POST runs the function with its job name and schedule time")
    func cloudScheduler() async throws {
        let seen = WorkerFixtures.Seen()
        let headers: HTTPFields = [
            HTTPField.Name("X-CloudScheduler")!: "true",
            HTTPField.Name("X-CloudScheduler-JobName")!: "firebase-schedule-nightlyDigest-europe-west1",
            HTTPField.Name("X-CloudScheduler-ScheduleTime")!: "2026-11-29T03:00:00Z",
            .userAgent: "Google-Cloud-Scheduler",
        ]
        let response = try await WorkerEventTests.post("nightlyDigest", headers: headers, body: "", to: try Self.worker(seen))
        #expect(response.status == .ok)
        #expect(seen.all == ["firebase-schedule-nightlyDigest-europe-west1 2026-11-29T03:00:00.000Z"])
    }

    @Test("a Knative PingSource event runs the function at its time; another event type is refused")
    func pingSource() async throws {
        let seen = WorkerFixtures.Seen()
        let worker = try Self.worker(seen)
        var headers = WorkerFixtures.headers("""
            ce-specversion: 1.0
            ce-id: 6d3c0a8e
            ce-source: /apis/v1/namespaces/default/pingsources/nightlydigest
            ce-type: dev.knative.sources.ping
            ce-time: 2026-11-29T03:00:00Z
            """)
        headers[.contentType] = "application/json"
        let response = try await WorkerEventTests.post("nightlyDigest", headers: headers, body: "{}", to: worker)
        #expect(response.status == .ok)
        #expect(seen.all == ["nightlydigest 2026-11-29T03:00:00.000Z"])

        headers[HTTPField.Name("ce-type")!] = "com.example.other"
        let other = try await WorkerEventTests.post("nightlyDigest", headers: headers, body: "{}", to: worker)
        #expect(other.status == .badRequest)
        #expect(seen.all.count == 1)
    }
}
