import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Synchronization
import Testing

@Suite("Handlers' Admin clients against the emulator")
struct EmulatorAdminClientTests {
    @Test("onUserCreated writes /users/{uid} and sets claims through context.database and context.auth")
    func authAndDatabase() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        try await emulator.withRunning {
            var functions = FunctionRegistry()
            functions["onUserCreated"] = Auth.user().onCreate { user, context in
                try await context.database.ref("users/\(user.uid)").set([
                    "email": user.email.map(JSONValue.string) ?? .null,
                    "displayName": user.displayName.map(JSONValue.string) ?? .null,
                    "createdAt": user.metadata.creationTime.map { .string(RFC3339Timestamp.string(from: $0)) } ?? .null,
                ])
                try await context.auth.setCustomUserClaims(user.uid, ["role": "player"])
            }
            try await emulator.deploy(functions)
            let created = try await emulator.admin.auth.createUser(
                UserProperties(uid: "u1", email: "Ann@Example.com", password: "secret-1", displayName: "Ann")
            )
            #expect(created.email == "ann@example.com")
            await emulator.waitUntilIdle()

            let profile = try emulator.database.get(namespace: emulator.defaultDatabaseInstance, path: "users/u1")
            #expect(profile["email"] == "ann@example.com")
            #expect(profile["displayName"] == "Ann")
            #expect(profile["createdAt"]?.stringValue.flatMap { RFC3339Timestamp.date(from: $0) } != nil)
            #expect(try await emulator.admin.auth.getUser("u1").customClaims == ["role": "player"])
            #expect(try await emulator.admin.auth.getUserByEmail("ann@example.com").uid == "u1")

            let updated = try await emulator.admin.auth.updateUser("u1", UserProperties(displayName: "Ann B"))
            #expect(updated.displayName == "Ann B")
            try await emulator.admin.auth.deleteUser("u1")
            await #expect(throws: ServiceError.self) { try await emulator.admin.auth.getUser("u1") }
        }
    }

    @Test("a path built with an empty segment fails instead of writing over the parent", arguments: [
        "users/", "users//ada", "/users/", "users/ada/",
    ])
    func emptySegment(path: String) async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        let ns = emulator.defaultDatabaseInstance
        try await emulator.database.set(namespace: ns, path: "users", value: ["ada": ["score": 1], "bob": ["score": 2]])
        let database = emulator.admin.database
        let error = await #expect(throws: DatabasePathError.self) { try await database.ref(path).set(["x": 1]) }
        #expect(error?.path == path)
        await #expect(throws: DatabasePathError.self) { try await database.ref(path).remove() }
        await #expect(throws: DatabasePathError.self) { try await database.ref("users").child("").update(["x": 1]) }
        await #expect(throws: DatabasePathError.self) { try await database.ref().child("").remove() }
        #expect(try emulator.database.get(namespace: ns, path: "users") == ["ada": ["score": 1], "bob": ["score": 2]])
        // The root and paths with a leading slash are fine.
        #expect(try await database.ref("/users/ada").get().val() == ["score": 1])
        #expect(try await database.ref().child("users/bob/score").get().val() == 2)
    }

    @Test("deleting a user delivers the deleted record to Auth.user().onDelete")
    func userDeleted() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        try await emulator.withRunning {
            let deleted = Mutex<[UserRecord]>([])
            var functions = FunctionRegistry()
            functions["onUserDeleted"] = Auth.user().onDelete { user, _ in deleted.withLock { $0.append(user) } }
            try await emulator.deploy(functions)
            _ = try await emulator.admin.auth.createUser(UserProperties(uid: "gone", email: "gone@example.com",
                displayName: "Gone"))
            await emulator.waitUntilIdle()
            #expect(deleted.withLock { $0 }.isEmpty, "creating is not deleting")
            try await emulator.admin.auth.deleteUser("gone")
            await emulator.waitUntilIdle()
            let records = deleted.withLock { $0 }
            #expect(records.map(\.uid) == ["gone"])
            #expect(records.first?.email == "gone@example.com")
            #expect(records.first?.displayName == "Gone")
        }
    }

    @Test("concurrent transactions in process lose no update")
    func transactions() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        let counter = emulator.admin.database.ref("counters/hits")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<32 {
                group.addTask { try await counter.transaction(maxAttempts: 200) { .number(($0.numberValue ?? 0) + 1) } }
            }
            try await group.waitForAll()
        }
        #expect(try emulator.database.get(namespace: emulator.defaultDatabaseInstance, path: "counters/hits") == 32)
    }

    @Test("a function reads and publishes the template through context.remoteConfig")
    func remoteConfig() async throws {
        let emulator = try Emulator(project: "demo-project", directory: nil)
        try await emulator.withRunning {
            let seen = Mutex<[String: String]>([:])
            var functions = FunctionRegistry()
            functions["mirror"] = Database.ref("/flags/{key}").onWrite { change, context in
                let current = try await context.remoteConfig.getTemplate()
                var template = current.template
                guard let value = change.after.val().stringValue else { return }
                template.parameters[context.params["key"]!] = RemoteConfigParameter(defaultValue: .value(value))
                let published = try await context.remoteConfig.publishTemplate(template, etag: current.etag)
                seen.withLock { $0 = published.defaultValues }
            }
            try await emulator.deploy(functions)
            try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "flags/dark_mode", value: "on")
            await emulator.waitUntilIdle()
            #expect(seen.withLock { $0 } == ["dark_mode": "on"])
            let snapshot = try await emulator.admin.remoteConfig.getTemplate()
            #expect(snapshot.versionNumber == 1)
            #expect(snapshot.defaultValues == ["dark_mode": "on"])
            #expect(try emulator.remoteConfig.template().template.version?.updateOrigin == .adminSDKNode)
            await #expect(throws: ServiceError.self) {
                try await emulator.admin.remoteConfig.publishTemplate(snapshot.template, etag: "etag-stale-0")
            }
        }
    }
}
