import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import FirebaseHTTP
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// The Cloud Tasks API the emulator serves, called by the Admin client handlers use
/// (`context.tasks`): the emulator's form (firebase-admin's) and Google's (`/v2`).
@Suite("Task queue routes")
struct TaskQueueRoutesTests {
    @Test("context.tasks enqueues with an id, a delay and headers, is refused a reused id, and deletes; /v2 serves the same",
        .timeLimit(.minutes(1)))
    func adminClient() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        let sent = Mutex<[TaskQueueService.Attempt]>([])
        try await emulator.withRunning {
            emulator.taskQueues.deploy(["recount": TaskQueueService.Queue(trigger: TaskQueueTrigger(),
                location: "europe-west1", timeout: .seconds(60))]) { attempt in
                sent.withLock { $0.append(attempt) }
                return TaskQueueService.Answer(status: 204)
            }
            try await Application(router: EmulatorServer(emulator: emulator).router()).test(.live) { client in
                let base = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
                let tasks = HTTPTaskQueueClient(emulator: base, project: "demo")
                let before = Date()
                let id = try await tasks.enqueue(["playerName": "ada"], to: "locations/europe-west1/functions/recount",
                    id: "recount-ada", delay: .seconds(3_600), headers: ["X-Reason": "nightly"])
                #expect(id == "recount-ada")
                let stored = try #require(emulator.taskQueues.task(queue: "recount", location: "europe-west1", id: id))
                #expect(try JSONValue(parsing: stored.body) == ["data": ["playerName": "ada"]])
                #expect(stored.headers == ["Content-Type": "application/json", "X-Reason": "nightly"])
                #expect(abs(stored.scheduleTime.timeIntervalSince(before) - 3_600) < 5)

                let reused = await #expect(throws: TaskQueueError.self) {
                    try await tasks.enqueue(["playerName": "ada"], to: "locations/europe-west1/functions/recount", id: "recount-ada")
                }
                #expect(reused?.status == "ALREADY_EXISTS")
                let elsewhere = await #expect(throws: TaskQueueError.self) {
                    try await tasks.enqueue(["playerName": "ada"], to: "recount")
                }
                #expect(elsewhere?.status == "NOT_FOUND", "recount is in europe-west1, not us-central1")
                try await tasks.delete("recount-ada", from: "locations/europe-west1/functions/recount")
                let gone = await #expect(throws: TaskQueueError.self) {
                    try await tasks.delete("recount-ada", from: "locations/europe-west1/functions/recount")
                }
                #expect(gone?.status == "NOT_FOUND")

                // Google's form, as the client calls Cloud Tasks in production: /v2, a token.
                let google = HTTPTaskQueueClient(baseURL: base, credentials: FixedCredentials(project: "demo", token: "owner"))
                let generated = try await google.enqueue(["playerName": "bo"], to: "locations/europe-west1/functions/recount")
                #expect(generated.allSatisfy(\.isNumber) && !generated.isEmpty)
                await emulator.taskQueues.waitUntilIdle()
                #expect(sent.withLock { $0.map { $0.headers.first { $0.0 == Tasks.taskNameHeader }?.1 } } == [generated])
                let refused = await #expect(throws: TaskQueueError.self) {
                    try await HTTPTaskQueueClient(baseURL: base, credentials: FixedCredentials(project: "demo", token: "not-owner"))
                        .enqueue(["playerName": "bo"], to: "locations/europe-west1/functions/recount")
                }
                #expect(refused?.status == "UNAUTHENTICATED")
            }
        }
    }
}
