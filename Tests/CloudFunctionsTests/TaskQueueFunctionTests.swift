import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import Foundation
import Synchronization
import Testing

/// Task-queue functions: what their handler gets and answers, their queue's retry rule, and
/// how they appear in the manifest.
@Suite("Tasks: task-queue functions")
struct TaskQueueFunctionTests {
    struct Recount: Codable, Sendable, Equatable {
        var playerName: String
    }

    static func functions(_ seen: Calls) -> FunctionRegistry {
        var functions = FunctionRegistry()
        functions["recount"] = Tasks.queue(
            retry: TaskRetryConfig(maxAttempts: 5, maxRetryDuration: .seconds(600), minBackoff: .seconds(1)),
            rateLimits: TaskRateLimits(maxConcurrentDispatches: 10, maxDispatchesPerSecond: 50)
        ).options(.region("europe-west1")).onDispatch { (request: TaskRequest<Recount>) in
            let task = request.task
            seen.add(
                "\(request.data.playerName) \(task.queueName)/\(task.id) retry \(task.retryCount) "
                    + "executed \(task.executionCount) previous \(task.previousResponse.map(String.init) ?? "-") "
                    + "eta \(task.scheduleTime.map { RFC3339Timestamp.string(from: $0) } ?? "-")")
            if request.data.playerName == "refused" { throw CallableError(.failedPrecondition, "not now") }
            if request.data.playerName == "crash" { throw CocoaError(.fileNoSuchFile) }
        }
        return functions
    }

    @Test("the handler gets the task's data and the queue's headers; it answers 204, or the error a queue retries")
    func dispatch() async throws {
        let seen = Calls()
        let recount = try Self.functions(seen).wrapRequest("recount")
        let eta = RFC3339Timestamp.date(from: "2026-11-29T10:00:00.250Z")!
        try await recount.dispatch(Recount(playerName: "ada"), task: TaskContext(queueName: "recount", id: "t1",
            retryCount: 2, executionCount: 1, scheduleTime: eta, previousResponse: 503, retryReason: "HTTP 503"))
        #expect(seen.all == ["ada recount/t1 retry 2 executed 1 previous 503 eta 2026-11-29T10:00:00.250Z"])

        let refused = await #expect(throws: CallableError.self) { try await recount.dispatch(Recount(playerName: "refused")) }
        #expect(refused?.code == .failedPrecondition && refused?.message == "not now")
        let crashed = await #expect(throws: CallableError.self) { try await recount.dispatch(Recount(playerName: "crash")) }
        #expect(crashed?.code == .internal)

        // firebase-functions' rule: a JSON object with `data` and nothing else, whose data fits.
        for body in [#"{"playerName":"ada"}"#, #"{"data":{"playerName":"ada"},"extra":1}"#, #"{"data":{"name":1}}"#, "nope"] {
            let response = await recount.respond(to: HTTPSRequest(method: .post, target: "/",
                headerFields: [.contentType: "application/json"], body: Data(body.utf8)))
            #expect(response.status == .badRequest, "\(body)")
        }
        let ok = await recount.respond(to: HTTPSRequest(method: .post, target: "/",
            headerFields: [.contentType: "application/json"], body: Data(#"{"data":{"playerName":"bo"}}"#.utf8)))
        #expect(ok.status == .noContent)
        #expect(seen.all.count == 4, "bad bodies never reach the handler")
    }

    @Test("retries wait minBackoff, doubled maxDoublings times, then growing linearly, capped at maxBackoff")
    func backoff() {
        // Cloud Tasks' own example: 10 s, 300 s, 3 doublings.
        let config = TaskRetryConfig(maxAttempts: nil, minBackoff: .seconds(10), maxBackoff: .seconds(300), maxDoublings: 3)
        let start = Date(timeIntervalSince1970: 0)
        let waits = (1...9).map { config.retryTime(afterAttempts: $0, firstAttempt: start, now: start)!.timeIntervalSince1970 }
        #expect(waits == [10, 20, 40, 80, 160, 240, 300, 300, 300])
    }

    @Test("a task is given up on only when both maxAttempts and maxRetryDuration are spent; a limit left out is spent")
    func bothLimits() {
        let start = Date(timeIntervalSince1970: 0)
        let both = TaskRetryConfig(maxAttempts: 2, maxRetryDuration: .seconds(10), minBackoff: .seconds(4), maxDoublings: 0)
        #expect(both.retryTime(afterAttempts: 1, firstAttempt: start, now: start) != nil)
        #expect(both.retryTime(afterAttempts: 2, firstAttempt: start, now: start.addingTimeInterval(4)) != nil,
            "two attempts spent, the duration not yet")
        #expect(both.retryTime(afterAttempts: 5, firstAttempt: start, now: start.addingTimeInterval(9)) != nil)
        #expect(both.retryTime(afterAttempts: 2, firstAttempt: start, now: start.addingTimeInterval(10)) == nil)
        let attemptsOnly = TaskRetryConfig(maxAttempts: 2)
        #expect(attemptsOnly.retryTime(afterAttempts: 2, firstAttempt: start, now: start) == nil)
        let durationOnly = TaskRetryConfig(maxAttempts: nil, maxRetryDuration: .seconds(60))
        #expect(durationOnly.retryTime(afterAttempts: 50, firstAttempt: start, now: start.addingTimeInterval(59)) != nil)
        #expect(durationOnly.retryTime(afterAttempts: 3, firstAttempt: start, now: start.addingTimeInterval(60)) == nil)
        let unlimited = TaskRetryConfig(maxAttempts: nil)
        #expect(unlimited.retryTime(afterAttempts: 1_000, firstAttempt: start, now: start.addingTimeInterval(1e7)) != nil)
    }

    @Test("the manifest has the queue's retryConfig and rateLimits as firebase-functions writes them, and reads them back")
    func manifest() throws {
        let manifest = Self.functions(Calls()).manifest()
        #expect(manifest.requiredAPIs.map(\.api) == ["cloudtasks.googleapis.com"])
        let json = try JSONValue(parsing: manifest.json())
        let endpoint = json["endpoints"]?["recount"]
        #expect(endpoint?["taskQueueTrigger"] == [
            "retryConfig": [
                "maxAttempts": 5, "maxRetrySeconds": 600, "minBackoffSeconds": 1, "maxBackoffSeconds": 3600,
                "maxDoublings": 16,
            ],
            "rateLimits": ["maxConcurrentDispatches": 10, "maxDispatchesPerSecond": 50],
        ])
        #expect(endpoint?["region"] == ["europe-west1"])
        let read = try FunctionsManifest(json: manifest.json())
        #expect(try read.endpoints["recount"]?.functionTrigger() == .taskQueue(TaskQueueTrigger(
            retryConfig: TaskRetryConfig(maxAttempts: 5, maxRetryDuration: .seconds(600), minBackoff: .seconds(1)),
            rateLimits: TaskRateLimits(maxConcurrentDispatches: 10, maxDispatchesPerSecond: 50))))
        // Unlimited attempts are Cloud Tasks' -1; nulls are the defaults.
        let written = Data(#"{"specVersion":"v1alpha1","endpoints":{"q":{"entryPoint":"q","taskQueueTrigger":{"retryConfig":{"maxAttempts":-1,"maxRetrySeconds":null,"maxDoublings":null},"rateLimits":null}}}}"#.utf8)
        #expect(try FunctionsManifest(json: written).endpoints["q"]?.functionTrigger()
            == .taskQueue(TaskQueueTrigger(retryConfig: TaskRetryConfig(maxAttempts: nil))))
    }

    @Test("a queue Cloud Tasks would refuse is a registration problem")
    func problems() {
        var functions = FunctionRegistry()
        let bad = Tasks.queue(retry: TaskRetryConfig(maxAttempts: 0),
            rateLimits: TaskRateLimits(maxDispatchesPerSecond: 501)).onDispatch { (_: TaskRequest<JSONValue>) in }
        let error = #expect(throws: RegistryError.self) { try functions.register("bad", bad) }
        let problems = error?.problems.map(\.message) ?? []
        #expect(problems.contains { $0.contains("maxAttempts must be from 1 to 100") })
        #expect(problems.contains { $0.contains("maxDispatchesPerSecond must be above 0 and at most 500") })
    }
}
