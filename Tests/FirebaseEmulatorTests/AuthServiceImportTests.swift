import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("AuthService: import, export, persistence")
struct AuthServiceImportTests {
    let harness: AuthServiceHarness
    var service: AuthService { harness.service }

    init() throws { harness = try AuthServiceHarness() }

    func message(_ body: () async throws -> Void) async -> String? { await AuthServiceHarness.error(body)?.message }

    /// A cost-4 bcrypt hash of `password` with its `$2b$` prefix rewritten.
    func bcrypt(_ password: String, prefix: String) throws -> String {
        return prefix + AuthFixtures.hasher.hash(password).dropFirst(4)
    }

    @Test("a Parse export imports with $2a$/$2b$/$2y$ hashes and every user signs in with the original password")
    func parseImport() async throws {
        let export: JSONValue = [
            "results": [
                ["objectId": "pA", "email": "A@Parse.com", "username": "alice",
                 "bcryptPassword": .string(try bcrypt("alice-pass", prefix: "$2a$")),
                 "createdAt": "2016-01-02T03:04:05.678Z",
                 "authData": ["facebook": ["id": "fb-1", "access_token": "t"]]],
                ["objectId": "pB", "username": "bob@parse.com",
                 "_hashed_password": .string(try bcrypt("bob-pass", prefix: "$2b$"))],
                ["objectId": "pY", "email": "y@parse.com",
                 "bcryptPassword": .string(try bcrypt("why-pass", prefix: "$2y$"))],
            ],
        ]
        let outcome = try await service.importUsers(try ParseUserExport.batchCreateRequest(from: export))
        #expect(outcome.failures == [])
        #expect(outcome.imported == ["pA", "pB", "pY"])
        #expect(outcome.json == ["kind": "identitytoolkit#UploadAccountResponse", "error": []])
        #expect(try await service.signInWithPassword(email: "a@parse.com", password: "alice-pass").localId == "pA")
        #expect(try await service.signInWithPassword(email: "bob@parse.com", password: "bob-pass").localId == "pB")
        #expect(try await service.signInWithPassword(email: "y@parse.com", password: "why-pass").localId == "pY")
        await #expect(message { _ = try await service.signInWithPassword(email: "y@parse.com", password: "bob-pass") }
            == "INVALID_PASSWORD")
        let alice = try service.user(uid: "pA")
        #expect(alice.displayName == "alice")
        #expect(alice.createdAt == Date(timeIntervalSince1970: 1_451_703_845.678))
        #expect(try service.lookup(AuthLookupRequest(federatedUserId: [.init(providerId: "facebook.com", rawId: "fb-1")]))
            .map(\.localId) == ["pA"])
        let events = harness.recorder.events
        #expect(events.map(\.type) == Array(repeating: "google.firebase.auth.user.v1.created", count: 3))
        #expect(events.map(\.subject) == ["users/pA", "users/pB", "users/pY"])
        let record = try JSONDecoder().decode(UserRecord.self, from: try #require(events[0].data))
        #expect(record.metadata.creationTime == Date(timeIntervalSince1970: 1_451_703_845.678))
        #expect(Set(record.providerData.map(\.providerId)) == ["password", "facebook.com"])
    }

    @Test("URL-safe base64 hashes (the Python SDK's form) import too")
    func urlSafeHash() async throws {
        let hash = try bcrypt("pass-word", prefix: "$2a$")
        let outcome = try await service.importUsers([
            "hashAlgorithm": "BCRYPT",
            "users": [["localId": "u1", "email": "u1@x.io", "passwordHash": .string(AuthBase64.urlEncoded(Data(hash.utf8))),
                       "createdAt": 1_600_000_000_000, "lastLoginAt": "1600000001000"]],
        ])
        #expect(outcome.failures.isEmpty)
        let user = try service.user(uid: "u1")
        #expect(user.lastLoginAt == Date(timeIntervalSince1970: 1_600_000_001))
        #expect(try await service.signInWithPassword(email: "u1@x.io", password: "pass-word").localId == "u1")
    }

    @Test("per-user failures that need the store; the rest of the batch is imported")
    func storeFailures() async throws {
        try await service.signUp(AuthSignUpRequest(email: "taken@x.io", phoneNumber: "+15550000001", localId: "old"),
                           privileged: true)
        try await service.importUsers(["users": [["localId": "fb", "providerUserInfo": [["providerId": "facebook.com", "rawId": "9"]]]]])
        harness.recorder.reset()
        let outcome = try await service.importUsers([
            "users": [
                ["localId": "old", "displayName": "overwrite?"],
                ["localId": "e", "email": "TAKEN@x.io"],
                ["localId": "p", "phoneNumber": "+15550000001"],
                ["localId": "r", "providerUserInfo": [["providerId": "facebook.com", "rawId": "9"]]],
                ["localId": "ok", "email": "fresh@x.io"],
                ["email": "no-id@x.io"],
            ],
        ])
        #expect(outcome.failures == [
            AuthImportFailure(index: 0, message: "localId belongs to an existing account - can not overwrite."),
            AuthImportFailure(index: 1, message: "((Auth Emulator does not support importing duplicate email: taken@x.io))"),
            AuthImportFailure(index: 2, message: "phone number exists in other account in database"),
            AuthImportFailure(index: 3, message: "raw id exists in other account in database"),
            AuthImportFailure(index: 5, message: "localId is missing"),
        ])
        #expect(outcome.imported == ["ok"])
        #expect(harness.recorder.events.map(\.subject) == ["users/ok"])
        #expect(try service.user(uid: "old").displayName == nil)
    }

    @Test("allowOverwrite replaces an existing user without a created event")
    func overwrite() async throws {
        try await service.signUp(AuthSignUpRequest(localId: "old"), privileged: true)
        harness.recorder.reset()
        let outcome = try await service.importUsers(["allowOverwrite": true, "users": [["localId": "old", "displayName": "New"]]])
        #expect(outcome.imported == ["old"])
        #expect(try service.user(uid: "old").displayName == "New")
        #expect(harness.recorder.events.isEmpty)
    }

    @Test("request-level import errors store and emit nothing")
    func requestErrors() async throws {
        await #expect(message { _ = try await service.importUsers(["users": []]) } == "MISSING_USER_ACCOUNT")
        await #expect(message { _ = try await service.importUsers(["users": [["localId": "a"], ["localId": "a"]]]) }
            == "DUPLICATE_LOCAL_ID : a")
        await #expect(message { _ = try await service.importUsers(["hashAlgorithm": "ROT13", "users": [["localId": "a"]]]) }
            == "INVALID_HASH_ALGORITHM : ROT13")
        #expect(try service.listUsers().users.isEmpty)
        #expect(harness.recorder.events.isEmpty)
    }

    @Test("users, hashes and settings survive reopening the store")
    func persistence() async throws {
        let directory = AuthServiceHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let first = try AuthServiceHarness(directory: directory)
            try await first.service.signUp(
                AuthSignUpRequest(email: "ann@example.com", password: "secret1", phoneNumber: "+15551112222", localId: "ann"),
                privileged: true
            )
            try await first.service.update(AuthUpdateRequest(localId: "ann", customAttributes: #"{"role":"admin"}"#))
            try await first.service.updateEmulatorConfig(enableImprovedEmailPrivacy: true)
        }
        let second = try AuthServiceHarness(directory: directory)
        let user = try second.service.user(email: "ann@example.com")
        #expect(user.localId == "ann")
        #expect(user.customClaims == ["role": "admin"])
        #expect(user.createdAt == AuthServiceHarness.start)
        #expect(second.service.emulatorConfig.enableImprovedEmailPrivacy)
        #expect(try await second.service.signInWithPassword(email: "ann@example.com", password: "secret1").localId == "ann")
        await #expect(AuthServiceHarness.error {
            try await second.service.signUp(AuthSignUpRequest(phoneNumber: "+15551112222"), privileged: true)
        }?.message == "PHONE_NUMBER_EXISTS")
        let outbox = try second.store.pendingEvents()
        #expect(outbox.map(\.event.type) == ["google.firebase.auth.user.v1.created"])
    }

    @Test("a whole export file imports all or nothing: a uid given twice, across its batches of 1,000, stores no user")
    func wholeFileAllOrNothing() async throws {
        func export(duplicating pair: (Int, Int)?) -> JSONValue {
            ["users": .array((0..<1_500).map { index in
                let uid = pair.map { index == $0.1 ? "u\($0.0)" : "u\(index)" } ?? "u\(index)"
                return ["localId": .string(uid), "email": .string("user\(index)@example.com")]
            })]
        }
        for pair in [(1_200, 1_300), (5, 1_005)] {
            await #expect(message { _ = try await service.importExport(export(duplicating: pair), format: .firebase,
                hashAlgorithm: nil) } == "DUPLICATE_LOCAL_ID : u\(pair.0)")
            #expect(try service.listUsers(maxResults: 10, pageToken: nil).users.isEmpty, "nothing stored")
        }
        let outcome = try await service.importExport(export(duplicating: nil), format: .firebase, hashAlgorithm: nil)
        #expect(outcome.imported.count == 1_500)
        #expect(outcome.failures.isEmpty)
    }

    @Test("export and importExported move every user between stores without events")
    func exportImport() async throws {
        try await service.signUp(AuthSignUpRequest(email: "a@x.io", password: "secret1", localId: "a"), privileged: true)
        try await service.signUp(AuthSignUpRequest(localId: "b"), privileged: true)
        let exported = try service.exportUsers(project: "demo-auth")
        #expect(exported.map(\.localId) == ["a", "b"])
        #expect(try service.exportUsers(project: "elsewhere").isEmpty)
        let other = try AuthServiceHarness()
        try await other.service.signUp(AuthSignUpRequest(localId: "gone"), privileged: true)
        other.recorder.reset()
        try await other.service.importExported(exported)
        #expect(try other.service.exportUsers() == exported)
        #expect(other.recorder.events.isEmpty)
        #expect(try await other.service.signInWithPassword(email: "a@x.io", password: "secret1").localId == "a")
        let before = try other.service.exportUsers()
        var clash = exported[1]
        clash.email = "a@x.io"
        await #expect(AuthServiceHarness.error { try await other.service.importExported(exported + [clash]) }?.message
            == "DUPLICATE_LOCAL_ID")
        clash.localId = "c"
        await #expect(AuthServiceHarness.error { try await other.service.importExported(exported + [clash]) }?.message
            == "EMAIL_EXISTS")
        #expect(try other.service.exportUsers() == before)
    }
}
