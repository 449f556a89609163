import CloudEvents
import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import FirebaseHTTP
import FunctionsWorker
import Hummingbird
import Testing

/// A functions binary's `context.database`, `.auth` and `.remoteConfig` against a live emulator.
@Suite("Workers' HTTP Admin clients: database, auth, Remote Config")
struct HTTPAdminClientsTests {
    /// Runs `body` with the Admin clients a worker builds from the emulator's environment.
    static func withClients(
        _ emulator: Emulator,
        environment extra: [String: String] = [:],
        _ body: @Sendable (AdminClients, Int) async throws -> Void
    ) async throws {
        try await EmulatorServer(emulator: emulator).withRunning { base in
            let environment = ["FUNCTIONS_EMULATOR_URL": base.absoluteString, "GCLOUD_PROJECT": "demo"]
                .merging(extra.mapValues { $0.replacingOccurrences(of: "PORT", with: String(base.port ?? 0)) }) { $1 }
            try await body(try FunctionsWorker.adminClients(environment: environment), base.port ?? 0)
        }
    }

    @Test("database: set, get, update with multi-segment keys, push, delete; writes fire triggers; bad keys fail")
    func database() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await emulator.withRunning {
            var functions = FunctionRegistry()
            functions["count"] = Database.ref("/items/{id}").onCreate { _, _ in }
            try await emulator.deploy(functions)
            try await Self.withClients(emulator) { admin, _ in
                let database = admin.database
                try await database.ref("items/a").set(["name": "first", "tags": ["x": true]])
                try await database.ref("items/a").update(["name": "renamed", "tags/y": true])
                #expect(try await database.ref("items/a").get().val() == ["name": "renamed", "tags": ["x": true, "y": true]])
                let pushed = try await database.ref("items").push(["name": "pushed"])
                #expect(pushed.key?.count == 20)
                #expect(try await database.ref("items").get().numChildren() == 2)
                try await database.ref("items/a").remove()
                #expect(try await database.ref("items/a").get().exists() == false)
                await #expect {
                    try await database.ref("items/bad.key").set(1)
                } throws: { ($0 as? AdminHTTPError)?.status == 400 }
            }
            await emulator.waitUntilIdle()
            let created = try emulator.store.eventLog().filter { $0.entry.event.type == FirebaseEventType.databaseCreated }
            #expect(created.count == 2)
            #expect(try emulator.database.get(namespace: "demo-default-rtdb", path: "items") != .null)
        }
    }

    @Test("database: keys with spaces, non-ASCII, %, +, &, = and ? reach the emulator as written, from a base URL ending in /")
    func keysThatNeedEncoding() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        let keys = ["two words", "café", "100%", "a+b", "x&y=z", "why?", "user@host:1"]
        try await Self.withClients(emulator, environment: ["FUNCTIONS_EMULATOR_URL": "http://127.0.0.1:PORT/"]) { admin, _ in
            for (index, key) in keys.enumerated() {
                try await admin.database.ref("odd").child(key).set(.number(Double(index)))
            }
            #expect(try await admin.database.ref("odd").child("a+b").get().val() == 3)
            #expect(try await admin.database.ref("odd/x&y=z").get().val() == 4)
        }
        let expected = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, JSONValue.number(Double($0))) })
        #expect(try emulator.database.get(namespace: "demo-default-rtdb", path: "odd") == .object(expected))
    }

    @Test("database: 100 concurrent reads (batched by the worker's client) each get their own value and ETag")
    func concurrentReads() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await Self.withClients(emulator) { admin, port in
            let players = (0..<100).map { "p\($0)" }
            try await admin.database.ref("leaderboard").set(
                .object(Dictionary(uniqueKeysWithValues: players.enumerated().map { ($1, .number(Double($0))) })))
            // The same reads one by one, as the REST GET answers them.
            let alone = HTTPDatabaseClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!,
                namespace: "demo-default-rtdb")
            var expected: [String: VersionedValue] = [:]
            for player in players { expected[player] = try await alone.getVersioned("leaderboard/\(player)") }
            let database = admin.database
            let read = try await withThrowingTaskGroup(of: (String, VersionedValue, JSONValue).self) { group in
                for player in players {
                    group.addTask {
                        (player, try await database.getVersioned("leaderboard/\(player)"),
                            try await database.get("leaderboard/\(player)"))
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = ($1.1, $1.2) }
            }
            for player in players {
                #expect(read[player]?.0 == expected[player])
                #expect(read[player]?.1 == expected[player]?.value)
            }
            await #expect {
                try await database.get("leaderboard/bad.key")
            } throws: { ($0 as? AdminHTTPError)?.status == 400 }
        }
    }

    @Test("database: concurrent transactions over HTTP lose no update; a transaction can abort")
    func transactions() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await Self.withClients(emulator) { admin, _ in
            let counter = admin.database.ref("counters/hits")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        try await counter.transaction(maxAttempts: 100) { .number(($0.numberValue ?? 0) + 1) }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await counter.get().val() == 16)
            let aborted = try await counter.transaction { _ in nil }
            #expect(aborted == nil)
            let written = try await admin.database.ref("counters/new").transaction { current in
                #expect(current == .null)
                return ["created": true]
            }
            #expect(written?.val() == ["created": true])
        }
        #expect(try emulator.database.get(namespace: "demo-default-rtdb", path: "counters/hits") == 16)
    }

    @Test("database: a write made while handling an event carries the chain depth; past the limit it is refused")
    func chainDepth() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await Self.withClients(emulator) { admin, _ in
            var event = CloudEvent(id: "e1", source: "//test", type: FirebaseEventType.databaseWritten)
            event.extensions["chaindepth"] = .integer(DatabaseService.maximumChainDepth)
            let handling = admin.database.handling(event)
            await #expect {
                try await handling.ref("loop/x").set(1)
            } throws: { error in
                (error as? AdminHTTPError)?.message.contains("loop/x") == true
            }
            event.extensions["chaindepth"] = .integer(3)
            try await admin.database.handling(event).ref("loop/y").set(2)
        }
        #expect(try emulator.database.get(namespace: "demo-default-rtdb", path: "loop") == ["y": 2])
    }

    @Test("auth: create, get by uid and email, update, claims, delete; unknown users and bad input fail")
    func auth() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        // The Admin SDKs' variable works too: the auth client follows it.
        try await Self.withClients(emulator, environment: ["FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:PORT"]) {
            admin, _ in
            let auth = admin.auth
            let created = try await auth.createUser(
                UserProperties(uid: "ada", email: "Ada@Example.com", password: "secret1", displayName: "Ada"))
            #expect(created.uid == "ada")
            #expect(created.email == "ada@example.com")
            #expect(created.metadata.creationTime != nil)
            #expect(created.providerData.map(\.providerId) == ["password"])
            #expect(try await auth.getUserByEmail("ada@example.com").uid == "ada")
            let updated = try await auth.updateUser("ada", UserProperties(displayName: "Ada L.", disabled: true))
            #expect(updated.displayName == "Ada L.")
            #expect(updated.disabled)
            try await auth.setCustomUserClaims("ada", ["admin": true])
            #expect(try await auth.getUser("ada").customClaims == ["admin": true])
            try await auth.setCustomUserClaims("ada", nil)
            #expect(try await auth.getUser("ada").customClaims.isEmpty)
            await #expect {
                try await auth.createUser(UserProperties(uid: "ada"))
            } throws: { ($0 as? AdminHTTPError)?.message == "DUPLICATE_LOCAL_ID" }
            try await auth.deleteUser("ada")
            await #expect {
                try await auth.getUser("ada")
            } throws: { ($0 as? AdminHTTPError)?.message.hasPrefix("USER_NOT_FOUND") == true }
        }
        let types = try emulator.store.eventLog().map(\.entry.event.type)
        #expect(types == [FirebaseEventType.authUserCreated, FirebaseEventType.authUserDeleted])
    }

    @Test("the Admin SDKs' host variables send auth and database calls elsewhere; the namespace variable picks the instance")
    func hostVariables() async throws {
        let main = try Emulator(project: "demo", directory: nil)
        let other = try Emulator(project: "demo", directory: nil)
        try await EmulatorServer(emulator: main).withRunning { mainBase in
            try await EmulatorServer(emulator: other).withRunning { otherBase in
                let host = "127.0.0.1:\(otherBase.port ?? 0)"
                let admin = try FunctionsWorker.adminClients(environment: [
                    "FUNCTIONS_EMULATOR_URL": mainBase.absoluteString, "GCLOUD_PROJECT": "demo",
                    "FIREBASE_AUTH_EMULATOR_HOST": host, "FIREBASE_DATABASE_EMULATOR_HOST": host,
                    "FIREBASE_DATABASE_NAMESPACE": "elsewhere-ns",
                ])
                _ = try await admin.auth.createUser(UserProperties(uid: "ada", email: "ada@example.com"))
                try await admin.database.ref("notes/n1").set("hello")
                _ = try await admin.remoteConfig.publishTemplate(RemoteConfigTemplate(), etag: nil)
            }
        }
        #expect(try other.auth.listUsers().users.map(\.localId) == ["ada"])
        #expect(try main.auth.listUsers().users.isEmpty)
        #expect(try other.database.get(namespace: "elsewhere-ns", path: "notes/n1") == "hello")
        #expect(try other.database.get(namespace: "demo-default-rtdb", path: "notes") == .null)
        #expect(try main.database.get(namespace: "elsewhere-ns", path: "notes") == .null)
        #expect(main.remoteConfig.latestVersion() == 1, "Remote Config follows FUNCTIONS_EMULATOR_URL")
        #expect(other.remoteConfig.latestVersion() == 0)
    }

    @Test("remoteConfig: publish against the ETag, a stale ETag fails, rollback publishes a new version")
    func remoteConfig() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await Self.withClients(emulator) { admin, _ in
            let remoteConfig = admin.remoteConfig
            let empty = try await remoteConfig.getTemplate()
            #expect(empty.versionNumber == 0)
            let first = try await remoteConfig.publishTemplate(
                RemoteConfigTemplate(parameters: ["welcome": RemoteConfigParameter(defaultValue: .value("hi"))]),
                etag: empty.etag)
            #expect(first.versionNumber == 1)
            #expect(first.defaultValues == ["welcome": "hi"])
            await #expect {
                try await remoteConfig.publishTemplate(RemoteConfigTemplate(), etag: empty.etag)
            } throws: { ($0 as? AdminHTTPError)?.status == 412 }
            let second = try await remoteConfig.publishTemplate(RemoteConfigTemplate(), etag: nil)
            #expect(second.versionNumber == 2)
            let rolledBack = try await remoteConfig.rollback(to: 1)
            #expect(rolledBack.versionNumber == 3)
            #expect(rolledBack.defaultValues == ["welcome": "hi"])
            #expect(try await remoteConfig.getTemplate().etag == rolledBack.etag)
            // Versions, newest first, a page at a time.
            let page = try await remoteConfig.listVersions(pageSize: 2, pageToken: nil)
            #expect(page.versions.map(\.versionNumber) == [3, 2])
            let rest = try await remoteConfig.listVersions(pageSize: 2, pageToken: page.nextPageToken)
            #expect(rest.versions.map(\.versionNumber) == [1])
            #expect(rest.nextPageToken == nil)
            #expect(try await remoteConfig.listVersions().versions.count == 3)
        }
    }
}
