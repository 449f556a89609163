import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("AuthService: update, delete, batch delete, list")
struct AuthServiceUpdateTests {
    let harness: AuthServiceHarness
    var service: AuthService { harness.service }

    init() async throws {
        harness = try AuthServiceHarness()
        try await harness.service.signUp(
            AuthSignUpRequest(
                email: "ann@example.com", password: "secret1", displayName: "Ann", photoUrl: "https://x.io/a.png",
                phoneNumber: "+15551234567", localId: "ann"
            ),
            privileged: true
        )
        try await harness.service.signUp(
            AuthSignUpRequest(email: "bob@example.com", phoneNumber: "+15559999999", localId: "bob"), privileged: true
        )
        harness.recorder.reset()
    }

    func message(_ body: () async throws -> Void) async -> String? { await AuthServiceHarness.error(body)?.message }

    @Test("updates every field; a new password signs in and revokes earlier tokens")
    func updateFields() async throws {
        let before = try await service.signInWithPassword(email: "ann@example.com", password: "secret1")
        harness.clock.advance(by: .seconds(5))
        let user = try await service.update(
            AuthUpdateRequest(
                localId: "ann", email: "Ann2@Example.com", password: "newsecret", displayName: "Anna",
                photoUrl: "https://x.io/b.png", phoneNumber: "+15550000001", emailVerified: true, disableUser: false,
                customAttributes: #"{"admin":true,"level":3}"#
            )
        )
        #expect(user.email == "ann2@example.com")
        #expect(user.emailVerified)
        #expect(user.displayName == "Anna")
        #expect(user.photoURL == "https://x.io/b.png")
        #expect(user.phoneNumber == "+15550000001")
        #expect(user.customClaims == ["admin": true, "level": 3])
        #expect(user.validSince == Date(timeIntervalSince1970: 1_700_000_005))
        #expect(try service.user(uid: "ann") == user)
        #expect(try await service.signInWithPassword(email: "ann2@example.com", password: "newsecret").localId == "ann")
        await #expect(message { _ = try await service.signInWithPassword(email: "ann2@example.com", password: "secret1") }
            == "INVALID_PASSWORD")
        await #expect(message { _ = try service.verifyIDToken(before.idToken) } == "TOKEN_EXPIRED")
        let token = try AuthIDToken(
            parsing: try await service.signInWithPassword(email: "ann2@example.com", password: "newsecret").idToken,
            projectId: "demo-auth", now: harness.clock.now
        )
        #expect(token.customClaims == ["admin": true, "level": 3])
        #expect(harness.recorder.events.isEmpty)
    }

    @Test("a new email resets emailVerified; deleteAttribute and deleteProvider remove fields; claims clear")
    func deletions() async throws {
        try await service.update(AuthUpdateRequest(localId: "ann", emailVerified: true, customAttributes: #"{"a":1}"#))
        var user = try await service.update(AuthUpdateRequest(localId: "ann", email: "new@example.com"))
        #expect(!user.emailVerified)
        user = try await service.update(
            AuthUpdateRequest(
                localId: "ann", customAttributes: "{}", deleteAttribute: ["DISPLAY_NAME", "PHOTO_URL"],
                deleteProvider: ["phone"]
            )
        )
        #expect(user.displayName == nil && user.photoURL == nil && user.phoneNumber == nil)
        #expect(user.customClaims.isEmpty)
        #expect(try service.lookup(AuthLookupRequest(phoneNumber: ["+15551234567"])).isEmpty)
        try await service.signUp(AuthSignUpRequest(phoneNumber: "+15551234567"), privileged: true)
        user = try await service.update(AuthUpdateRequest(localId: "ann", validSince: 1_600_000_000))
        #expect(user.validSince == Date(timeIntervalSince1970: 1_600_000_000))
        user = try await service.update(AuthUpdateRequest(localId: "ann", deleteProvider: ["password"]))
        #expect(user.email == nil && user.passwordHash == nil)
    }

    @Test("validSince arrives as text or a number")
    func validSinceWire() throws {
        for body in [#"{"localId":"ann","validSince":"1600000000"}"#, #"{"localId":"ann","validSince":1600000000}"#] {
            let request = try JSONDecoder().decode(AuthUpdateRequest.self, from: Data(body.utf8))
            #expect(request.validSince == 1_600_000_000)
        }
    }

    static let updateCases: [(AuthUpdateRequest, String)] = [
        (AuthUpdateRequest(localId: nil, displayName: "x"), "MISSING_LOCAL_ID"),
        (AuthUpdateRequest(localId: "nobody", displayName: "x"), "USER_NOT_FOUND"),
        (AuthUpdateRequest(localId: "ann", email: "bad"), "INVALID_EMAIL"),
        (AuthUpdateRequest(localId: "ann", email: "BOB@example.com"), "EMAIL_EXISTS"),
        (AuthUpdateRequest(localId: "ann", password: "12345"), "WEAK_PASSWORD : Password should be at least 6 characters"),
        (AuthUpdateRequest(localId: "ann", phoneNumber: "12"), "INVALID_PHONE_NUMBER : Invalid format."),
        (AuthUpdateRequest(localId: "ann", phoneNumber: "+15559999999"), "PHONE_NUMBER_EXISTS"),
        (AuthUpdateRequest(localId: "ann", customAttributes: "[1]"), "INVALID_CLAIMS"),
        (AuthUpdateRequest(localId: "ann", customAttributes: "{nope"), "INVALID_CLAIMS"),
        (AuthUpdateRequest(localId: "ann", customAttributes: #"{"a":""# + String(repeating: "x", count: 1000) + #""}"#),
         "CLAIMS_TOO_LARGE"),
        (AuthUpdateRequest(localId: "ann", customAttributes: #"{"sub":"x"}"#), "FORBIDDEN_CLAIM : sub"),
        (AuthUpdateRequest(localId: "ann", deleteAttribute: ["NICKNAME"]), "INVALID_DELETE_ATTRIBUTE : NICKNAME"),
    ]

    @Test("bad updates throw, change nothing and emit nothing", arguments: updateCases)
    func updateErrors(request: AuthUpdateRequest, expected: String) async throws {
        let before = try service.user(uid: "ann")
        let error = await AuthServiceHarness.error { try await service.update(request) }
        #expect(error?.message == expected)
        #expect(error?.httpStatus == 400)
        #expect(try service.user(uid: "ann") == before)
        #expect(harness.recorder.events.isEmpty)
    }

    @Test("delete emits user.v1.deleted with the user as it was")
    func delete() async throws {
        harness.clock.advance(by: .seconds(1))
        let deleted = try await service.delete(uid: "ann")
        #expect(deleted.displayName == "Ann")
        let event = try #require(harness.recorder.events.first)
        #expect(harness.recorder.events.count == 1)
        #expect(event.type == "google.firebase.auth.user.v1.deleted")
        #expect(event.source == "//firebaseauth.googleapis.com/projects/demo-auth")
        #expect(event.subject == "users/ann")
        let record = try JSONDecoder().decode(UserRecord.self, from: try #require(event.data))
        #expect(record.uid == "ann" && record.displayName == "Ann" && record.email == "ann@example.com")
        #expect(record.metadata.creationTime == AuthServiceHarness.start)
        await #expect(message { _ = try service.user(uid: "ann") } == "USER_NOT_FOUND")
        harness.recorder.reset()
        await #expect(message { try await service.delete(uid: "ann") } == "USER_NOT_FOUND")
        await #expect(message { try await service.delete(uid: nil) } == "MISSING_LOCAL_ID")
        #expect(harness.recorder.events.isEmpty)
    }

    @Test("batch delete keeps enabled users unless forced and skips unknown uids")
    func batchDelete() async throws {
        try await service.update(AuthUpdateRequest(localId: "bob", disableUser: true))
        let failures = try await service.batchDelete(localIds: ["ann", "ghost", "bob"], force: false)
        #expect(failures == [
            AuthBatchDeleteFailure(
                index: 0, localId: "ann", message: "NOT_DISABLED : Disable the account before batch deletion."
            ),
        ])
        #expect(harness.recorder.events.map(\.subject) == ["users/bob"])
        #expect(try await service.batchDelete(localIds: ["ann"], force: true).isEmpty)
        #expect(harness.recorder.events.map(\.type) == Array(repeating: "google.firebase.auth.user.v1.deleted", count: 2))
        #expect(try service.listUsers().users.isEmpty)
        await #expect(message { _ = try await service.batchDelete(localIds: [], force: true) } == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
        let tooMany = (0...1000).map { "u\($0)" }
        await #expect(message { _ = try await service.batchDelete(localIds: tooMany, force: true) } == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
    }

    @Test("deleteAllUsers wipes the project without events")
    func deleteAll() async throws {
        try await service.deleteAllUsers()
        #expect(try service.listUsers().users.isEmpty)
        #expect(harness.recorder.events.isEmpty)
    }

    @Test("lists in uid order across pages with opaque tokens")
    func listPaging() async throws {
        try await service.deleteAllUsers()
        let uids = (0..<45).map { String(format: "user%02d", 44 - $0) }
        for uid in uids { try await service.signUp(AuthSignUpRequest(localId: uid), privileged: true) }
        var seen: [String] = []
        var token: String?
        var pages = 0
        repeat {
            let page = try service.listUsers(maxResults: 20, pageToken: token)
            seen += page.users.map(\.localId)
            token = page.nextPageToken
            #expect(token.map { !$0.contains("user") } ?? true)
            pages += 1
        } while token != nil
        #expect(pages == 3)
        #expect(seen == uids.sorted())
        #expect(try service.listUsers().users.count == 20)
        #expect(try service.listUsers(maxResults: -1).users.count == 45)
        #expect(try service.listUsers(maxResults: 45).nextPageToken == nil)
        let page = try service.listUsers(maxResults: 2)
        #expect(page.json["nextPageToken"]?.stringValue == page.nextPageToken)
        #expect(page.json["users"]?.arrayValue?.first?["localId"] == "user00")
        for size in [0, -2, 1001] {
            await #expect(message { _ = try service.listUsers(maxResults: size) } == "INVALID_PAGE_SELECTION")
        }
        await #expect(message { _ = try service.listUsers(pageToken: "!!!") } == "INVALID_PAGE_SELECTION")
        await #expect(message { _ = try service.listUsers(pageToken: AuthBase64.urlEncoded(Data("user05".utf8))) }
            == "INVALID_PAGE_SELECTION")
    }
}
