import CloudEvents
import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import FirebaseHTTP
import Foundation
import FunctionsWorker
import Synchronization
import Testing

/// A functions binary's `context.admin.firestore` and `.pubsub`, as a worker builds them from the
/// emulator's environment, against Google's emulators run by this one.
@Suite("Workers' HTTP Admin clients: Firestore and Pub/Sub", .timeLimit(.minutes(3)))
struct HTTPFirestoreClientTests {
    static func withClients(_ body: @Sendable (AdminClients, Emulator) async throws -> Void) async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        var configuration = EmulatorServer.Configuration()
        configuration.startsFirestore = true
        configuration.startsPubSub = true
        try await EmulatorServer(emulator: emulator, configuration: configuration).withRunning { base in
            let admin = try FunctionsWorker.adminClients(
                environment: ["FUNCTIONS_EMULATOR_URL": base.absoluteString, "GCLOUD_PROJECT": "demo"])
            try await body(admin, emulator)
        }
    }

    @Test("documents: set, get with every value type, merge, update by field path, create once, delete")
    func documents() async throws {
        try await Self.withClients { admin, _ in
            let firestore = admin.firestore
            let fields: [String: FirestoreValue] = [
                "nothing": nil, "cheat": false, "score": .integer(9_007_199_254_740_993), "ratio": 0.25,
                "at": .timestamp(Date(timeIntervalSince1970: 1_767_323_045.123456)), "player": "ada",
                "avatar": .bytes(Data([0, 1, 254])), "owner": .reference("projects/demo/databases/(default)/documents/players/ada"),
                "where": .geoPoint(FirestoreGeoPoint(latitude: 48.85, longitude: 2.35)), "levels": [1, "two"],
                "address": ["city": "Paris", "zip": "75001"],
            ]
            try await firestore.set("gameScores/s1", fields)
            let read = try await firestore.get("gameScores/s1")
            #expect(read.exists && read.fields == fields)
            #expect(read.createTime != nil && read.updateTime != nil)
            #expect(try await firestore.get("gameScores/none").exists == false)

            try await firestore.set("gameScores/s1", ["address": ["city": "Lyon"], "extra": true], merge: true)
            let merged = try await firestore.get("gameScores/s1")
            #expect(merged["address"] == ["city": "Lyon", "zip": "75001"])
            #expect(merged["extra"] == true && merged["player"] == "ada")

            try await firestore.update("gameScores/s1", ["address.zip": "69001", "score": 1])
            #expect(try await firestore.get("gameScores/s1")["address"] == ["city": "Lyon", "zip": "69001"])
            let missing = await #expect(throws: FirestoreError.self) { try await firestore.update("gameScores/none", ["a": 1]) }
            #expect(missing?.status == "NOT_FOUND")

            try await firestore.create("gameScores/s2", ["score": 5])
            let twice = await #expect(throws: FirestoreError.self) { try await firestore.create("gameScores/s2", ["score": 6]) }
            #expect(twice?.status == "ALREADY_EXISTS")
            #expect(try await firestore.get("gameScores/s2")["score"] == 5)

            try await firestore.delete("gameScores/s2")
            #expect(try await firestore.get("gameScores/s2").exists == false)
        }
    }

    @Test("a query filters, orders and limits; a batch writes all or nothing")
    func queryAndBatch() async throws {
        try await Self.withClients { admin, _ in
            let firestore = admin.firestore
            try await firestore.commit([
                .set("gameScores/a", ["playerName": "ada", "score": 30, "cheatMode": false], merge: false),
                .set("gameScores/b", ["playerName": "bob", "score": 50, "cheatMode": true], merge: false),
                .set("gameScores/c", ["playerName": "cy", "score": 40, "cheatMode": false], merge: false),
                .set("gameScores/d", ["playerName": "di", "score": 10, "cheatMode": false], merge: false),
            ])
            let top = try await firestore.query(FirestoreQuery("gameScores",
                where: [.init("cheatMode", .equal, false)], orderBy: [.init("score", descending: true)], limit: 2))
            #expect(top.map(\.path) == ["gameScores/c", "gameScores/a"])
            #expect(top.map { $0["playerName"] } == ["cy", "ada"])

            // The create fails, so the delete in the same batch does not happen either.
            await #expect(throws: FirestoreError.self) {
                try await firestore.commit([.delete("gameScores/d"), .create("gameScores/a", ["score": 0])])
            }
            #expect(try await firestore.get("gameScores/d").exists)
        }
    }

    @Test("transactions: read-then-write commits, concurrent ones retried until each lands; a throwing body writes nothing")
    func transactions() async throws {
        try await Self.withClients { admin, _ in
            let firestore = admin.firestore
            try await firestore.set("counters/c", ["n": 0])
            // One after another: the Firestore emulator locks a document a transaction read until it ends.
            for _ in 0..<3 {
                try await firestore.runTransaction { transaction in
                    let n = try await transaction.get("counters/c")["n"]?.integerValue ?? 0
                    transaction.update("counters/c", ["n": .integer(n + 1)])
                    transaction.set("counters/log", ["last": .integer(n + 1)])
                }
            }
            #expect(try await firestore.get("counters/c")["n"] == 3)
            #expect(try await firestore.get("counters/log")["last"] == 3)
            // At once: the emulator makes all but one wait or abort; those are run again.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await firestore.runTransaction(maxAttempts: 20) { transaction in
                            let n = try await transaction.get("counters/c")["n"]?.integerValue ?? 0
                            transaction.update("counters/c", ["n": .integer(n + 1)])
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await firestore.get("counters/c")["n"] == 6)
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await firestore.runTransaction { transaction in
                    transaction.set("counters/c", ["n": -1])
                    throw Refused()
                }
            }
            #expect(try await firestore.get("counters/c")["n"] == 6)
        }
    }

    @Test("pubsub: a published message reaches the function on its topic")
    func publish() async throws {
        let (received, arrived) = AsyncStream.makeStream(of: String.self)
        var registry = FunctionRegistry()
        registry["onScore"] = PubSub.topic("score-submissions").onMessagePublished { message, _ in
            let submission = try message.json(as: [String: JSONValue].self)
            arrived.yield("\(submission["playerName"]?.stringValue ?? "") \(submission["score"]?.numberValue ?? 0) "
                + (message.attributes["via"] ?? ""))
        }
        let functions = registry
        try await Self.withClients { admin, emulator in
            try await emulator.deploy(functions)
            struct Submission: Encodable { var playerName: String; var score: Int }
            let id = try await admin.pubsub.publish(json: Submission(playerName: "ada", score: 42),
                attributes: ["via": "admin"], to: "score-submissions")
            #expect(!id.isEmpty)
            var iterator = received.makeAsyncIterator()
            #expect(await iterator.next() == "ada 42.0 admin")
            await #expect(throws: (any Error).self) { try await admin.pubsub.publish(json: 1, to: "no-such-topic") }
        }
    }
}
