import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import EmulatorServer
import FirebaseEmulator
import FirebaseHTTP
import FirestoreTriggers
import Foundation
import FunctionsBus
import Hummingbird
import ProcessSupport
import HummingbirdTesting
import Synchronization
import Testing

/// Google's Firestore emulator behind this one: its trigger events committed before the answer,
/// and delivered like every other event.
@Suite("Google's emulators", .timeLimit(.minutes(3)))
struct GoogleEmulatorsTests {
    /// A request the Firestore emulator sent, as captured: its headers and base64 body.
    static func captured(_ name: String) throws -> (headers: HTTPFields, body: String) {
        guard let url = Bundle.module.url(forResource: name, withExtension: "http", subdirectory: "Fixtures") else {
            throw CocoaError(.fileNoSuchFile)
        }
        let parts = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\r\n\r\n")
        var headers = HTTPFields()
        for line in parts[0].components(separatedBy: "\r\n").dropFirst() {
            let colon = line.firstIndex(of: ":")!
            let name = String(line[..<colon])
            guard !["host", "content-length", "connection"].contains(name.lowercased()) else { continue }
            headers.append(HTTPField(name: HTTPField.Name(name)!,
                value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return (headers, parts[1])
    }

    @Test("a POST of the Firestore emulator commits the event a function wants, with the bytes and source Eventarc sends")
    func committedAsEventarcSends() async throws {
        // The captured event is as old as its capture: the emulator's clock stands just after it,
        // or the event would be past the function's maximum event age (a day) and dead-lettered.
        let update = try Self.captured("v2-written.update")
        let sent = try #require(update.headers[HTTPField.Name("ce-time")!].flatMap { RFC3339Timestamp.date(from: $0) })
        let emulator = try Emulator(project: "demo-proj", directory: nil, clock: ManualClock(now: sent + 1))
        let seen = Mutex<[String]>([])
        var functions = FunctionRegistry()
        functions["onUser"] = Firestore.document("users/{uid}").onUpdate { change, context in
            seen.withLock { $0.append("\(context.params["uid"]!) \(change.before["age"]!) → \(change.after["age"]!)") }
        }
        let server = EmulatorServer(emulator: emulator, configuration: Self.withoutJava())
        try await emulator.withRunning {
            try await emulator.deploy(functions)
            try await Application(router: server.router()).test(.router) { client in
                try await client.execute(uri: "/functions/projects/demo-proj/triggers/t1", method: .post,
                    headers: update.headers, body: ByteBuffer(string: update.body)) { response in
                    #expect(response.status == .ok)
                }
                let missing = try Self.captured("v2-created.delete-of-missing-doc")
                try await client.execute(uri: "/functions/projects/demo-proj/triggers/t1", method: .post,
                    headers: missing.headers, body: ByteBuffer(string: missing.body)) { response in
                    #expect(response.status == .ok)
                }
                try await client.execute(uri: "/functions/projects/demo-proj/triggers/t1", method: .post,
                    headers: [.contentType: "application/protobuf"], body: ByteBuffer(string: "no")) { response in
                    #expect(response.status == .badRequest)
                }
            }
            await emulator.waitUntilIdle()
        }
        #expect(seen.withLock { $0 } == ["alice 30 → 31"])
        // Only the event a function wants is committed, with the bytes and source Eventarc gives.
        let log = try emulator.store.eventLog()
        #expect(log.map(\.entry.event.type) == ["google.cloud.firestore.document.v1.updated"])
        let event = try #require(log.first?.entry.event)
        #expect(event.source == "//firestore.googleapis.com/projects/demo-proj/databases/(default)")
        #expect(event.dataContentType == "application/protobuf")
        #expect(event.id == "0cb71277-5a5e-4c76-b038-a479a6876d10-updated")
        #expect(event.data?.first == 0x0A, "the protobuf bytes, not base64 text")
        #expect(log.allSatisfy { $0.done })
    }

    @Test("without Java the deploy stands, and the Firestore emulator says what is missing")
    func withoutJava() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        let server = EmulatorServer(emulator: emulator, configuration: Self.withoutJava())
        var registry = FunctionRegistry()
        registry["onDoc"] = Firestore.document("a/{b}").onCreate { _, _ in }
        let functions = registry
        try await server.withRunning { _ in
            try await emulator.deploy(functions)
            guard case .unavailable(let error) = server.google.firestore.status else {
                Issue.record("the Firestore emulator is \(server.google.firestore.status)")
                return
            }
            #expect(error.message.contains("Java"))
            #expect(error.message.contains("apt-get install"))
        }
    }

    @Test("asked to start after the server stopped, Google's emulator says it will not, rather than leave the caller waiting",
        .timeLimit(.minutes(1)))
    func startAfterStop() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        let server = EmulatorServer(emulator: emulator)
        try await server.withRunning { _ in }
        await #expect(throws: GoogleEmulatorError.self) { try await server.google.pubsub.start() }
        guard case .unavailable(let error) = server.google.pubsub.status else {
            Issue.record("the Pub/Sub emulator is \(server.google.pubsub.status)")
            return
        }
        #expect(error.message.contains("stopping"))
    }

    @Test("a Firestore write reaches a Swift function through the real Firestore emulator; a failed delivery is retried; the function writes back through context.firestore")
    func realFirestoreEmulator() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        let server = EmulatorServer(emulator: emulator)
        let (deliveries, delivered) = AsyncStream.makeStream(of: String.self)
        let failed = Mutex(false)
        var registry = FunctionRegistry()
        registry["onGameScore"] = Firestore.document("gameScores/{scoreId}").options(.retry(true)).onCreate {
            document, context in
            // The first attempt fails: the event must come again, from the outbox.
            let first = failed.withLock { failed in
                defer { failed = true }
                return !failed
            }
            if first { throw CallableError(.unavailable, "first attempt") }
            let score = try document.data(as: Score.self)
            try await context.firestore.set("leaderboards/\(score.playerName)", ["best": .integer(Int64(score.score))])
            delivered.yield("\(context.params["scoreId"]!) \(score.playerName) \(score.score) attempt \(context.attempt)")
        }
        let functions = registry
        try await server.withRunning { base in
            try await emulator.deploy(functions)
            guard case .running(let firestore) = server.google.firestore.status else {
                Issue.record("the Firestore emulator is \(server.google.firestore.status)")
                return
            }
            let hub = try await HTTPExchange.send("GET", base.appendingPathComponent("emulators"))
            let listed = try JSONValue(parsing: hub.body)
            #expect(listed["firestore"]?["port"]?.numberValue == Double(firestore.port))
            let port = base.port ?? 0
            #expect(listed["database"]?["port"]?.numberValue == Double(port))

            let document = URL(string: "http://\(firestore)/v1/projects/demo-project/databases/(default)/documents/gameScores/s1")!
            let written = try await HTTPExchange.send("PATCH", document,
                headers: [("Authorization", "Bearer owner"), ("Content-Type", "application/json")],
                body: Data(#"{"fields": {"playerName": {"stringValue": "ada"}, "score": {"integerValue": "42"}}}"#.utf8))
            #expect(written.status == 200, "\(String(decoding: written.body, as: UTF8.self))")
            var iterator = deliveries.makeAsyncIterator()
            #expect(await iterator.next() == "s1 ada 42 attempt 2")
            let leaderboard = URL(string: "http://\(firestore)/v1/projects/demo-project/databases/(default)/documents/leaderboards/ada")!
            let kept = try JSONValue(parsing: try await HTTPExchange.send("GET", leaderboard,
                headers: [("Authorization", "Bearer owner")]).body)
            #expect(kept["fields"]?["best"]?["integerValue"]?.stringValue == "42")
        }
        // Stopped with the server.
        if case .running(let firestore) = server.google.firestore.status {
            let gone = try? await HTTPExchange.send("GET", URL(string: "http://\(firestore)/")!, timeout: .seconds(2))
            #expect(gone == nil, "the Firestore emulator still answers after the server stopped")
        }
    }

    @Test("a Firestore clear through this emulator empties the database and fires no delete event; later deletes fire")
    func clearFiresNothing() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        let server = EmulatorServer(emulator: emulator)
        let (events, seen) = AsyncStream.makeStream(of: String.self)
        var registry = FunctionRegistry()
        registry["onScoreCreated"] = Firestore.document("gameScores/{scoreId}").onCreate { _, context in
            seen.yield("created \(context.params["scoreId"]!)")
        }
        registry["onScoreDeleted"] = Firestore.document("gameScores/{scoreId}").onDelete { _, context in
            seen.yield("deleted \(context.params["scoreId"]!)")
        }
        let functions = registry
        try await server.withRunning { base in
            try await emulator.deploy(functions)
            guard case .running(let firestore) = server.google.firestore.status else {
                Issue.record("the Firestore emulator is \(server.google.firestore.status)")
                return
            }
            let documents = "http://\(firestore)/v1/projects/demo-project/databases/(default)/documents/gameScores/"
            let owner = [("Authorization", "Bearer owner"), ("Content-Type", "application/json")]
            var iterator = events.makeAsyncIterator()
            for id in ["s1", "s2", "s3"] {
                let written = try await HTTPExchange.send("PATCH", URL(string: documents + id)!, headers: owner,
                    body: Data(#"{"fields": {"score": {"integerValue": "1"}}}"#.utf8))
                #expect(written.status == 200)
            }
            var created: Set<String> = []
            for _ in 0..<3 { created.insert(await iterator.next() ?? "") }
            #expect(created == ["created s1", "created s2", "created s3"])

            let clear = URL(string: "\(base.absoluteString)/emulator/v1/projects/demo-project/databases/(default)/documents")!
            let cleared = try await HTTPExchange.send("DELETE", clear)
            #expect(cleared.status == 200, "\(String(decoding: cleared.body, as: UTF8.self))")
            let gone = try await HTTPExchange.send("GET", URL(string: documents + "s1")!, headers: owner)
            #expect(gone.status == 404)

            // The triggers fire again: the next events are this document's, no clear's delete before them.
            for method in ["PATCH", "DELETE"] {
                let written = try await HTTPExchange.send(method, URL(string: documents + "s4")!, headers: owner,
                    body: method == "PATCH" ? Data(#"{"fields": {}}"#.utf8) : nil)
                #expect(written.status == 200)
            }
            #expect(await iterator.next() == "created s4")
            #expect(await iterator.next() == "deleted s4")
            await emulator.waitUntilIdle()
            let deletes = try emulator.store.eventLog().filter {
                $0.entry.event.type == FirestoreDocumentTrigger.EventType.deleted
            }
            #expect(deletes.count == 1)
        }
    }

    @Test("a message published to the real Pub/Sub emulator reaches a Swift function, each message once; the function publishes through context.pubsub")
    func realPubSubEmulator() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        let server = EmulatorServer(emulator: emulator)
        let (deliveries, delivered) = AsyncStream.makeStream(of: String.self)
        var registry = FunctionRegistry()
        registry["onScoreSubmitted"] = PubSub.topic("score-submissions").onMessagePublished { message, context in
            let score = try message.json(as: Score.self)
            let audit = try await context.pubsub.publish(json: ["seen": message.messageId], to: "score-audit")
            delivered.yield("\(score.playerName) \(score.score) \(message.attributes["via"] ?? "")\(audit.isEmpty ? " unpublished" : "")")
        }
        let functions = registry
        try await server.withRunning { base in
            try await emulator.deploy(functions)
            guard case .running(let pubsub) = server.google.pubsub.status else {
                Issue.record("the Pub/Sub emulator is \(server.google.pubsub.status)")
                return
            }
            let listed = try JSONValue(parsing: try await HTTPExchange.send("GET", base.appendingPathComponent("emulators")).body)
            #expect(listed["pubsub"]?["port"]?.numberValue == Double(pubsub.port))
            let publish = URL(string: "http://\(pubsub)/v1/projects/demo-project/topics/score-submissions:publish")!
            let topic = try await HTTPExchange.send("PUT", URL(string: "http://\(pubsub)/v1/projects/demo-project/topics/score-audit")!)
            #expect(topic.status == 200)
            var iterator = deliveries.makeAsyncIterator()
            for (name, score) in [("ada", 42), ("bob", 7), ("ada", 42)] {
                let data = Data(#"{"playerName": "\#(name)", "score": \#(score)}"#.utf8).base64EncodedString()
                let body: JSONValue = ["messages": [["data": .string(data), "attributes": ["via": "rest"]]]]
                let published = try await HTTPExchange.send("POST", publish, headers: [("Content-Type", "application/json")],
                    body: body.serializedData())
                #expect(published.status == 200, "\(String(decoding: published.body, as: UTF8.self))")
                #expect(await iterator.next() == "\(name) \(score) rest")
            }
            await emulator.waitUntilIdle()
            let events = try emulator.store.eventLog().filter { $0.entry.event.type == FirebaseEventType.pubSubPublished }
            #expect(events.count == 3)
            #expect(Set(events.map(\.entry.event.id)).count == 3)
            #expect(events.allSatisfy { $0.done })
        }
    }

    struct Score: Decodable {
        var playerName: String
        var score: Int
    }

    /// A configuration whose environment has neither Java nor the Google Cloud CLI.
    static func withoutJava() -> EmulatorServer.Configuration {
        var configuration = EmulatorServer.Configuration()
        configuration.environment = ["PATH": "/nonexistent"]
        return configuration
    }
}
