import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import FirebaseHTTP
import Foundation
import FunctionsBuiltins
import FunctionsBus
import FunctionsWorker
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// The Parse two-way sync, end to end: a stand-in Parse Server calls the `parseSync` webhook
/// served by a worker over HTTP (whose Admin clients reach the emulator over HTTP, as deployed),
/// and the mirroring trigger runs on the emulator's bus and calls the stand-in's REST API.
@Suite("Parse two-way sync")
struct ParseSyncTests {
    /// A running emulator, stand-in Parse Server and worker, wired together.
    struct Harness: Sendable {
        let emulator: Emulator
        let parse: ParseStandIn
        let parseURL: URL
        let webhookURL: URL
        /// How many database events the objects' path produced.
        let writes: Counter

        var database: any DatabaseClient { emulator.admin.database }

        /// A change made by an old client, through Parse's REST API without the master key.
        @discardableResult
        func parseCall(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
            let response = try await HTTPExchange.send(method, URL(string: parseURL.absoluteString + path)!,
                headers: [("X-Parse-Application-Id", parse.applicationId), ("Content-Type", "application/json")],
                body: body?.serializedData())
            #expect((200..<300).contains(response.status), "\(method) \(path): \(String(decoding: response.body, as: UTF8.self))")
            return try JSONValue(parsing: response.body)
        }

        /// The object in the database, without Parse's timestamps.
        func stored(_ id: String) async throws -> JSONValue {
            var value = try await database.get("parse/GameScore/\(id)").objectValue ?? [:]
            value["createdAt"] = nil
            value["updatedAt"] = nil
            return value.isEmpty ? .null : .object(value)
        }

        /// The object in Parse, without its id, class and timestamps.
        func inParse(_ id: String) -> JSONValue {
            guard var fields = parse.object("GameScore", id) else { return .null }
            fields["createdAt"] = nil
            fields["updatedAt"] = nil
            return .object(fields)
        }

        static func with(_ body: @Sendable (Harness) async throws -> Void) async throws {
            let emulator = try Emulator(project: "demo", directory: nil)
            let parse = ParseStandIn()
            try await EmulatorServer(emulator: emulator).withRunning { base in
                try await Application(router: parse.router()).test(.live) { parseClient in
                    let parseURL = URL(string: "http://127.0.0.1:\(try #require(parseClient.port))/parse")!
                    let writes = Counter()
                    var functions = FunctionRegistry()
                    functions.use(ParseSync(
                        server: ParseServer(url: parseURL, applicationId: parse.applicationId,
                            masterKey: parse.masterKey, webhookKey: parse.webhookKey),
                        classes: ["GameScore"],
                        options: [.backoff(BackoffPolicy(initial: .milliseconds(20), maximum: .milliseconds(100)))]
                    ))
                    functions["countWrites"] = Database.ref("/parse/GameScore/{id}").onWrite { _, _ in
                        writes.add()
                    }
                    try await emulator.deploy(functions)
                    let worker = try FunctionsWorker(
                        functions: functions,
                        admin: try FunctionsWorker.adminClients(environment: [
                            "FUNCTIONS_EMULATOR_URL": base.absoluteString, "GCLOUD_PROJECT": "demo",
                        ]),
                        tokens: EmulatorTokenVerifier(project: "demo")
                    )
                    try await Application(router: worker.router()).test(.live) { workerClient in
                        let webhookURL = URL(string: "http://127.0.0.1:\(try #require(workerClient.port))/parseSync")!
                        for trigger in ["afterSave", "afterDelete"] {
                            let registered = try await HTTPExchange.send("POST", URL(string: parseURL.absoluteString + "/hooks/triggers")!,
                                headers: [("X-Parse-Application-Id", parse.applicationId),
                                    ("X-Parse-Master-Key", parse.masterKey), ("Content-Type", "application/json")],
                                body: JSONValue.object(["className": "GameScore", "triggerName": .string(trigger),
                                    "url": .string(webhookURL.absoluteString)]).serializedData())
                            #expect(registered.status == 201)
                        }
                        try await body(Harness(emulator: emulator, parse: parse, parseURL: parseURL,
                            webhookURL: webhookURL, writes: writes))
                    }
                    await emulator.shutdown()
                }
            }
        }
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    @Test("a change on either side appears on the other exactly once, deletes included")
    func eachChangeOnce() async throws {
        try await Harness.with { h in
            // An old client creates an object in Parse: the webhook writes it to the database.
            let created = try await h.parseCall("POST", "/classes/GameScore", ["score": 10, "playerName": "ada"])
            let id = try #require(created["objectId"]?.stringValue)
            #expect(try await h.stored(id) == ["score": 10, "playerName": "ada"])
            let saved = try await h.database.get("parse/GameScore/\(id)")
            #expect(saved["updatedAt"]?.stringValue == h.parse.object("GameScore", id)?["updatedAt"]?.stringValue)
            await h.emulator.waitUntilIdle()
            #expect(h.parse.syncWrites.isEmpty, "a change from Parse is never sent back")
            #expect(h.writes.value == 1)

            // A new client changes it in the database: one PUT to Parse, whose echo is not written back.
            try await h.database.set("parse/GameScore/\(id)/score", 11)
            await h.emulator.waitUntilIdle()
            #expect(h.inParse(id) == ["score": 11, "playerName": "ada"])
            #expect(h.parse.syncWrites.map { "\($0.method) \($0.path)" } == ["PUT /parse/classes/GameScore/\(id)"])
            #expect(h.parse.syncWrites.first?.context?["firebaseSync"] != nil)
            #expect(h.writes.value == 2)

            // A field removed in the database is deleted in Parse.
            try await h.database.delete("parse/GameScore/\(id)/playerName")
            await h.emulator.waitUntilIdle()
            #expect(h.inParse(id) == ["score": 11])
            #expect(h.parse.syncWrites.last?.body?["playerName"] == ["__op": "Delete"])

            // Objects created and deleted in the database are created (with their key as
            // objectId) and deleted in Parse.
            try await h.database.set("parse/GameScore/fromApp", ["score": 5, "when": ["__type": "Date", "iso": "2026-11-24T10:00:00.000Z"]])
            await h.emulator.waitUntilIdle()
            #expect(h.inParse("fromApp") == ["score": 5, "when": ["__type": "Date", "iso": "2026-11-24T10:00:00.000Z"]])
            #expect(h.parse.syncWrites.last?.method == "POST")
            try await h.database.delete("parse/GameScore/fromApp")
            await h.emulator.waitUntilIdle()
            #expect(h.parse.object("GameScore", "fromApp") == nil)
            #expect(h.parse.syncWrites.count == 4)

            // An old client deletes in Parse: the object leaves the database, and nothing goes back.
            try await h.parseCall("DELETE", "/classes/GameScore/\(id)")
            #expect(try await h.stored(id) == .null)
            await h.emulator.waitUntilIdle()
            #expect(h.parse.syncWrites.count == 4)
            #expect(h.writes.value == 6)
        }
    }

    @Test("a field removed by a write that a newer one replaced is still deleted in Parse", .timeLimit(.minutes(2)))
    func removedFieldOfReplacedWrite() async throws {
        try await Harness.with { h in
            try await h.database.set("parse/GameScore/pair", ["score": 1, "playerName": "ada", "cheatMode": true])
            await h.emulator.waitUntilIdle()
            #expect(h.inParse("pair") == ["score": 1, "playerName": "ada", "cheatMode": true])
            // With Parse down, the first write's event is still being retried when the second is
            // committed, so it finds itself replaced; the second's `before` no longer has cheatMode.
            h.parse.setDown(true)
            try await h.database.delete("parse/GameScore/pair/cheatMode")
            try await h.database.set("parse/GameScore/pair/score", 2)
            await h.parse.wait { $0.calls.contains { $0.status == 503 } }
            h.parse.setDown(false)
            // Retries waiting for their time do not keep the bus busy: wait for every event to be done.
            try await h.emulator.store.waitUntil { try h.emulator.store.eventLog().allSatisfy(\.done) }
            await h.emulator.waitUntilIdle()
            #expect(h.inParse("pair") == ["score": 2, "playerName": "ada"])
            #expect(try await h.stored("pair") == ["score": 2, "playerName": "ada"])
        }
    }

    @Test("an afterSave webhook that arrives after a newer change does not put its version back")
    func lateWebhook() async throws {
        try await Harness.with { h in
            let created = try await h.parseCall("POST", "/classes/GameScore", ["score": 10])
            let id = try #require(created["objectId"]?.stringValue)
            await h.emulator.waitUntilIdle()
            let first = try #require(h.parse.object("GameScore", id))
            // A new client's change goes to Parse, which gives it a later updatedAt.
            try await h.database.set("parse/GameScore/\(id)/score", 11)
            await h.emulator.waitUntilIdle()
            #expect(h.inParse(id) == ["score": 11])
            // The creation's webhook, delivered again late (Parse retried it, or a proxy held it).
            var object = first
            object["objectId"] = .string(id)
            object["className"] = "GameScore"
            let late: JSONValue = ["triggerName": "afterSave", "object": .object(object), "master": false, "context": [:]]
            let response = try await HTTPExchange.send("POST", h.webhookURL,
                headers: [("Content-Type", "application/json"), ("X-Parse-Webhook-Key", h.parse.webhookKey)],
                body: late.serializedData())
            #expect(response.status == 200)
            #expect(try await h.stored(id) == ["score": 11])
            await h.emulator.waitUntilIdle()
            #expect(h.inParse(id) == ["score": 11])
        }
    }

    @Test("a value written back to what Parse last sent is still mirrored")
    func revertIsMirrored() async throws {
        try await Harness.with { h in
            let created = try await h.parseCall("POST", "/classes/GameScore", ["score": 20])
            let id = try #require(created["objectId"]?.stringValue)
            await h.emulator.waitUntilIdle()
            let fromParse = try await h.database.get("parse/GameScore/\(id)")
            try await h.database.set("parse/GameScore/\(id)/score", 21)
            await h.emulator.waitUntilIdle()
            #expect(h.inParse(id) == ["score": 21])
            // The new client puts back exactly what Parse had sent: it is a change, and goes to Parse.
            try await h.database.set("parse/GameScore/\(id)", fromParse)
            await h.emulator.waitUntilIdle()
            #expect(h.inParse(id) == ["score": 20])
            #expect(h.parse.syncWrites.count == 2)
        }
    }

    @Test("a thousand alternating changes make no loop and leave both sides equal")
    func alternatingChanges() async throws {
        try await Harness.with { h in
            let created = try await h.parseCall("POST", "/classes/GameScore", ["score": 0])
            let id = try #require(created["objectId"]?.stringValue)
            await h.emulator.waitUntilIdle()
            for change in 1...1000 {
                if change.isMultiple(of: 2) {
                    try await h.parseCall("PUT", "/classes/GameScore/\(id)", ["score": .number(Double(change))])
                } else {
                    try await h.database.set("parse/GameScore/\(id)/score", .number(Double(change)))
                }
                await h.emulator.waitUntilIdle()
            }
            #expect(try await h.stored(id) == ["score": 1000])
            #expect(h.inParse(id) == ["score": 1000])
            // 500 database changes went to Parse once each; 500 Parse changes (and the create) came
            // to the database once each; nothing else was written on either side.
            #expect(h.parse.syncWrites.count == 500)
            #expect(h.writes.value == 1001)
            #expect(h.emulator.bus?.deadLetters.isEmpty == true)
        }
    }

    @Test("while Parse is down, a change is retried with backoff and arrives once when it is back")
    func outage() async throws {
        try await Harness.with { h in
            h.parse.setDown(true)
            try await h.database.set("parse/GameScore/duringOutage", ["score": 7])
            await h.parse.wait { $0.calls.filter { $0.status == 503 }.count >= 3 }
            #expect(h.parse.object("GameScore", "duringOutage") == nil)
            h.parse.setDown(false)
            await h.parse.wait { $0.objects["GameScore/duringOutage"] != nil }
            await h.emulator.waitUntilIdle()
            #expect(h.inParse("duringOutage") == ["score": 7])
            #expect(h.parse.syncWrites.count == 1)
            #expect(h.emulator.bus?.deadLetters.isEmpty == true)
        }
    }

    @Test("the webhook refuses a wrong key, another class, a non-webhook and a field the database cannot hold")
    func webhookInput() async throws {
        try await Harness.with { h in
            func post(_ body: String, key: String?) async throws -> (Int, JSONValue) {
                var headers = [("Content-Type", "application/json")]
                if let key { headers.append(("X-Parse-Webhook-Key", key)) }
                let response = try await HTTPExchange.send("POST", h.webhookURL, headers: headers, body: Data(body.utf8))
                return (response.status, try JSONValue(parsing: response.body))
            }
            let object = #"{"triggerName":"afterSave","object":{"className":"GameScore","objectId":"x1","score":1}}"#
            let (unkeyed, unkeyedBody) = try await post(object, key: nil)
            #expect(unkeyed == 401)
            #expect(unkeyedBody["error"]?.stringValue?.contains("X-Parse-Webhook-Key") == true)
            #expect(try await post(object, key: "guess").0 == 401)
            let (other, otherBody) = try await post(
                #"{"triggerName":"afterSave","object":{"className":"Secret","objectId":"x1"}}"#, key: h.parse.webhookKey)
            #expect(other == 400)
            #expect(otherBody["error"] == "class 'Secret' is not synced by parseSync")
            #expect(try await post("not json", key: h.parse.webhookKey).0 == 400)
            #expect(try await post(#"{"triggerName":"beforeSave","object":{"className":"GameScore","objectId":"x1"}}"#,
                key: h.parse.webhookKey).0 == 400)
            let (dotted, dottedBody) = try await post(
                #"{"triggerName":"afterSave","object":{"className":"GameScore","objectId":"x1","stats":{"a.b":1}}}"#,
                key: h.parse.webhookKey)
            #expect(dotted == 400)
            #expect(dottedBody["error"]?.stringValue?.contains("stats.a.b") == true)
            #expect(try await h.database.get("parse").isNull, "nothing refused was written")
            #expect(try await post(object, key: h.parse.webhookKey).0 == 200)
            #expect(try await h.stored("x1") == ["score": 1])
        }
    }

    @Test("system classes, the root and the marks' own path cannot be synced")
    func configurationProblems() throws {
        let server = ParseServer(url: URL(string: "http://127.0.0.1:1/parse")!, applicationId: "a", masterKey: "m",
            webhookKey: nil)
        var functions = FunctionRegistry()
        functions.use(ParseSync(server: server, paths: ["_User": "users", "GameScore": "", "Player": "parseSyncMarks/p"]))
        let error = try #require(throws: RegistryError.self) { try functions.validate() }
        #expect(error.problems.map(\.function).sorted() == ["parseSyncGameScore", "parseSyncPlayer", "parseSync_User"])
        #expect(error.problems.allSatisfy { $0.code == .invalidConfiguration })
    }
}
