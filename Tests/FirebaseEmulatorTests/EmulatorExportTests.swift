import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import FunctionsBuiltins
import Synchronization
import Testing

@Suite("Emulator export and import")
struct EmulatorExportTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
    }

    /// Puts something in every service.
    static func fill(_ emulator: Emulator) async throws -> (token: String, other: String) {
        for revision in 1...3 {
            let template = try RemoteConfigTemplate.decode(from: Data(
                #"{"parameters": {"color": {"defaultValue": {"value": "c\#(revision)"}}}}"#.utf8))
            try await emulator.remoteConfig.publish(template, ifMatch: "*")
        }
        try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "users/u1", value: ["name": "Ann"])
        try await emulator.database.set(namespace: "second-db", path: "a/b", value: [1, 2, 3])
        _ = try await emulator.auth.signUp(
            AuthSignUpRequest(email: "ann@example.com", password: "secret-1", displayName: "Ann", localId: "u1"),
            privileged: true
        )
        let token = try await emulator.messaging.registerDevice(platform: "ios")
        let other = try await emulator.messaging.registerDevice(platform: "android")
        _ = try await emulator.messaging.subscribe(tokens: [token], to: "PUSH_RC")
        try await emulator.messaging.send(PushConfig().message)
        try await emulator.messaging.send(Message(.token(other), data: ["k": "v"]))
        _ = try await emulator.analytics.logEvents(
            AnalyticsMeasurementRequest.parse([
                "app_instance_id": "0123456789abcdef0123456789abcdef",
                "events": [["name": "level_up", "params": ["level": 3]]],
            ]),
            appId: "1:1:ios:1"
        )
        return (token, other)
    }

    @Test("everything written reads back the same after export and import", arguments: [false, true])
    func roundTrip(onDisk: Bool) async throws {
        let exportDirectory = Self.temporaryDirectory()
        let dataDirectory = Self.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: exportDirectory)
            try? FileManager.default.removeItem(at: dataDirectory)
        }
        let source = try Emulator(project: "demo-project", directory: nil)
        let (token, other) = try await Self.fill(source)
        try await source.export(to: exportDirectory)
        for file in ["emulator-export.json", "remote-config.json", "auth/users.json", "messaging.json",
            "analytics.json", "database/demo-project-default-rtdb.json", "database/second-db.json"]
        {
            #expect(FileManager.default.fileExists(atPath: exportDirectory.appendingPathComponent(file).path), "\(file)")
        }

        let target = try Emulator(project: "demo-project", directory: onDisk ? dataDirectory : nil)
        try await target.withRunning {
            var functions = FunctionRegistry()
            functions["anything"] = Eventarc.onEvent(type: FirebaseEventType.authUserCreated) { _, _ in }
            try await target.deploy(functions)
            try await target.importState(from: exportDirectory)
            await target.waitUntilIdle()

            #expect(try target.remoteConfig.listVersions().versions.count == 3)
            #expect(try target.remoteConfig.template().template == source.remoteConfig.template().template)
            #expect(try target.database.get(namespace: target.defaultDatabaseInstance, path: "") == ["users": ["u1": ["name": "Ann"]]])
            #expect(try target.database.get(namespace: "second-db", path: "a/b") == [1, 2, 3])
            #expect(try await target.auth.signInWithPassword(email: "ann@example.com", password: "secret-1").localId == "u1")
            #expect(target.messaging.isRegistered(token))
            #expect(target.messaging.topics(forToken: token) == ["PUSH_RC"])
            #expect(try target.messaging.inbox(token: token).map(\.data) == [["CONFIG_STATE": "STALE"]])
            #expect(try target.messaging.inbox(token: other).map(\.data) == [["k": "v"]])
            #expect(try target.analytics.events(appInstanceId: "0123456789abcdef0123456789abcdef").map(\.name) == ["level_up"])
            // An import emits no events: nothing reached the deployed function.
            #expect(try target.store.eventLog().isEmpty)
            // The imported state keeps working: a new topic message reaches the imported device.
            try await target.messaging.send(PushConfig().message)
            #expect(try target.messaging.inbox(token: token).count == 2)
        }
    }

    @Test("a malformed export changes nothing and names the file")
    func malformed() async throws {
        let exportDirectory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: exportDirectory) }
        let source = try Emulator(project: "demo-project", directory: nil)
        _ = try await Self.fill(source)
        try await source.export(to: exportDirectory)
        try Data("{ not json".utf8).write(to: exportDirectory.appendingPathComponent("messaging.json"))

        let target = try Emulator(project: "demo-project", directory: nil)
        try await target.database.set(namespace: target.defaultDatabaseInstance, path: "keep", value: true)
        await #expect {
            try await target.importState(from: exportDirectory)
        } throws: { error in
            (error as? ServiceError)?.message.hasPrefix("messaging.json") == true
        }
        #expect(try target.database.get(namespace: target.defaultDatabaseInstance, path: "keep") == true)
        #expect(try target.remoteConfig.listVersions().versions.isEmpty)

        try FileManager.default.removeItem(at: exportDirectory.appendingPathComponent("auth/users.json"))
        await #expect(throws: ServiceError.self) { try await target.importState(from: exportDirectory) }
    }

    @Test("an export that is well-formed but cannot be stored (colliding users, a bad instance name) changes nothing")
    func refusedWhole() async throws {
        let exportDirectory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: exportDirectory) }
        let source = try Emulator(project: "demo-project", directory: nil)
        _ = try await Self.fill(source)
        try await source.export(to: exportDirectory)
        let target = try Emulator(project: "demo-project", directory: nil)
        try await target.database.set(namespace: target.defaultDatabaseInstance, path: "keep", value: true)
        let users = exportDirectory.appendingPathComponent("auth/users.json")
        let original = try Data(contentsOf: users)

        // The same user twice.
        let user = try #require(try JSONValue(parsing: original).arrayValue?.first)
        try JSONValue.array([user, user]).serializedData().write(to: users)
        await #expect(throws: ServiceError.self) { try await target.importState(from: exportDirectory) }
        #expect(try target.remoteConfig.listVersions().versions.isEmpty, "Remote Config untouched")
        #expect(try target.analytics.events(appInstanceId: nil).isEmpty, "analytics untouched")
        #expect(try target.database.get(namespace: target.defaultDatabaseInstance, path: "keep") == true)

        // An instance name no database may have.
        try original.write(to: users)
        let metadata = exportDirectory.appendingPathComponent("emulator-export.json")
        var fields = try #require(try JSONValue(parsing: Data(contentsOf: metadata)).objectValue)
        fields["databaseInstances"] = ["../escape"]
        try JSONValue.object(fields).serializedData().write(to: metadata)
        await #expect {
            try await target.importState(from: exportDirectory)
        } throws: { error in
            (error as? ServiceError)?.message == "emulator-export.json: '../escape' is not a database instance name"
        }
        #expect(try target.remoteConfig.listVersions().versions.isEmpty)
        #expect(try target.database.get(namespace: target.defaultDatabaseInstance, path: "keep") == true)
    }

    @Test("an export of another project's emulator lands in this project, analytics too, and can be imported again")
    func otherProject() async throws {
        let exportDirectory = Self.temporaryDirectory()
        let dataDirectory = Self.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: exportDirectory)
            try? FileManager.default.removeItem(at: dataDirectory)
        }
        let source = try Emulator(project: "demo-a", directory: nil)
        _ = try await Self.fill(source)
        try await source.export(to: exportDirectory)
        let target = try Emulator(project: "demo-b", directory: dataDirectory)
        for _ in 0..<2 {
            try await target.importState(from: exportDirectory)
            #expect(try target.analytics.events(appInstanceId: "0123456789abcdef0123456789abcdef").map(\.name) == ["level_up"])
        }
    }
    @Test("two database instances whose names differ only in case get files of their own")
    func caseOnlyInstances() async throws {
        let exportDirectory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: exportDirectory) }
        let source = try Emulator(project: "demo-project", directory: nil)
        try await source.database.set(namespace: "Scores", path: "a", value: 1)
        try await source.database.set(namespace: "scores", path: "a", value: 2)
        try await source.export(to: exportDirectory)
        // On a disk that ignores case (macOS's, usually) the two files would be one.
        let names = try FileManager.default.contentsOfDirectory(atPath: exportDirectory.appendingPathComponent("database").path)
        #expect(Set(names.map { $0.lowercased() }).count == 2, "\(names)")

        let target = try Emulator(project: "demo-project", directory: nil)
        try await target.importState(from: exportDirectory)
        #expect(try target.database.get(namespace: "Scores", path: "a") == 1)
        #expect(try target.database.get(namespace: "scores", path: "a") == 2)

        // The file an instance is read from must be one of the export's database files.
        let metadata = exportDirectory.appendingPathComponent("emulator-export.json")
        var fields = try #require(try JSONValue(parsing: Data(contentsOf: metadata)).objectValue)
        fields["databaseFiles"] = ["Scores": "database/../remote-config.json", "scores": "database/scores.2.json"]
        try JSONValue.object(fields).serializedData().write(to: metadata)
        await #expect {
            try await target.importState(from: exportDirectory)
        } throws: { error in
            (error as? ServiceError)?.message
                == "emulator-export.json: 'database/../remote-config.json' is not a database file of the export"
        }
    }

    @Test("an export is the state at one point in time, across database instances", arguments: [false, true])
    func onePointInTime(onDisk: Bool) async throws {
        let exportDirectory = Self.temporaryDirectory()
        let dataDirectory = Self.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: exportDirectory)
            try? FileManager.default.removeItem(at: dataDirectory)
        }
        let emulator = try Emulator(project: "demo-project", directory: onDisk ? dataDirectory : nil)
        try await emulator.database.set(namespace: "a-db", path: "n", value: 0)
        try await emulator.database.set(namespace: "b-db", path: "n", value: 0)
        // Each round writes `a-db` before `b-db`, so at any point in time a = b or a = b + 1.
        let stop = Atomic<Bool>(false)
        let writer = Task {
            var round = 1
            while !stop.load(ordering: .relaxed), round <= 100_000 {
                _ = try? await emulator.database.set(namespace: "a-db", path: "n", value: .number(Double(round)))
                _ = try? await emulator.database.set(namespace: "b-db", path: "n", value: .number(Double(round)))
                round += 1
            }
        }
        defer { stop.store(true, ordering: .relaxed) }
        for _ in 0..<30 {
            try await emulator.export(to: exportDirectory)
            func read(_ instance: String) async throws -> Double? {
                let file = exportDirectory.appendingPathComponent("database/\(instance).json")
                return try JSONValue(parsing: Data(contentsOf: file))["n"]?.numberValue
            }
            let a = try await #require(try read("a-db"))
            let b = try await #require(try read("b-db"))
            #expect(a == b || a == b + 1, "a-db at \(a), b-db at \(b)")
        }
        stop.store(true, ordering: .relaxed)
        await writer.value
    }
}
