import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@Suite("Dead letter routes")
struct EmulatorDeadLetterRoutesTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "refused on purpose" }
    }

    static func json(_ response: TestResponse) -> JSONValue? {
        try? JSONValue(parsing: Data(response.body.readableBytesView))
    }

    @Test("lists an event a function failed on, replays it, and it is gone from the list and succeeded in the log")
    func listAndReplay() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await emulator.withRunning {
            let runs = Mutex(0)
            var functions = FunctionRegistry()
            // Fails its first run (no retry: dead-lettered at once), succeeds afterwards.
            functions["flaky"] = Database.ref("/items/{id}").onCreate { _, _ in
                let run = runs.withLock { runs in
                    runs += 1
                    return runs
                }
                if run == 1 { throw Refused() }
            }
            try await emulator.deploy(functions)
            try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "items/a", value: 1)
            await emulator.waitUntilIdle()
            let server = EmulatorServer(emulator: emulator)
            try await Application(router: server.router()).test(.router) { client in
                let id = try await client.execute(uri: "/emulator/v1/projects/demo/deadLetters", method: .get) { response in
                    #expect(response.status == .ok)
                    let letters = try #require(Self.json(response)?["deadLetters"]?.arrayValue)
                    #expect(letters.count == 1)
                    let letter = try #require(letters.first)
                    #expect(letter["function"] == "flaky")
                    #expect(letter["type"] == "google.firebase.database.ref.v1.created")
                    #expect(letter["eventId"]?.stringValue?.isEmpty == false)
                    #expect(letter["attempts"] == 1)
                    #expect(letter["reason"] == "failed")
                    #expect(letter["lastError"]?.stringValue?.contains("refused on purpose") == true)
                    #expect(letter["time"]?.stringValue?.hasSuffix("Z") == true)
                    return try #require(letter["id"]?.stringValue)
                }
                try await client.execute(uri: "/emulator/v1/projects/demo/functions:stats", method: .get) { response in
                    let flaky = Self.json(response)?["functions"]?.arrayValue?.first
                    #expect(flaky?["deadLettered"] == 1)
                    #expect(flaky?["failedAttempts"] == 1)
                    #expect(flaky?["lastErrors"]?.arrayValue?.first?["error"]?.stringValue?.contains("refused on purpose") == true)
                }
                try await client.execute(uri: "/emulator/v1/projects/demo/deadLetters:replay", method: .post, headers: [.authorization: "Bearer owner"],
                    body: ByteBuffer(string: #"{"id": \#(JSONValue.string(id).serialized())}"#)) { response in
                    #expect(response.status == .ok)
                    #expect(Self.json(response) == ["id": .string(id), "replayed": true])
                }
                await emulator.waitUntilIdle()
                #expect(runs.withLock { $0 } == 2)
                try await client.execute(uri: "/emulator/v1/projects/demo/deadLetters", method: .get) { response in
                    #expect(Self.json(response) == ["deadLetters": []])
                }
                // The event log records the replayed delivery too.
                try await client.execute(uri: "/emulator/v1/projects/demo/events", method: .get) { response in
                    let delivery = Self.json(response)?["events"]?.arrayValue?.first?["deliveries"]?.arrayValue?.first
                    #expect(delivery?["status"] == "succeeded")
                    #expect(delivery?["attempts"] == 2)
                }
                try await client.execute(uri: "/emulator/v1/projects/demo/functions:stats?window=3600", method: .get) { response in
                    let flaky = Self.json(response)?["functions"]?.arrayValue?.first
                    #expect(flaky?["function"] == "flaky")
                    #expect(flaky?["events"] == 1)
                    #expect(flaky?["attempts"] == 2)
                    #expect(flaky?["succeeded"] == 1)
                    #expect(flaky?["failedAttempts"] == 1)
                    #expect(flaky?["deadLettered"] == 0)
                    // Both attempts' durations, and the failed one's error, which the replay did not clear.
                    #expect(flaky?["p50Ms"]?.numberValue != nil)
                    #expect(flaky?["p99Ms"]?.numberValue != nil)
                    #expect(flaky?["lastErrors"]?.arrayValue?.count == 1)
                }
                try await client.execute(uri: "/emulator/v1/projects/demo/functions:stats?window=0", method: .get) { response in
                    #expect(response.status == .badRequest)
                }
                try await client.execute(uri: "/emulator/v1/projects/demo/deadLetters:replay", method: .post, headers: [.authorization: "Bearer owner"],
                    body: ByteBuffer(string: #"{"id": \#(JSONValue.string(id).serialized())}"#)) { response in
                    #expect(response.status == .notFound)
                    #expect(Self.json(response)?["error"]?["status"] == "NOT_FOUND")
                }
            }
        }
    }

    @Test("without a deployment the list is empty; a replay without an id is 400, an unknown id 404")
    func errors() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/emulator/v1/projects/demo/deadLetters", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Self.json(response) == ["deadLetters": []])
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/deadLetters:replay", method: .post, headers: [.authorization: "Bearer owner"],
                body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .badRequest)
                #expect(Self.json(response)?["error"]?["status"] == "INVALID_ARGUMENT")
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/deadLetters:replay", method: .post, headers: [.authorization: "Bearer owner"],
                body: ByteBuffer(string: #"{"id": "nope"}"#)) { #expect($0.status == .notFound) }
        }
    }
}
