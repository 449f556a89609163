import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import GRDB
import Testing

@Suite("AuthService: create, lookup, events")
struct AuthServiceTests {
    let harness: AuthServiceHarness
    var service: AuthService { harness.service }

    init() throws { harness = try AuthServiceHarness() }

    @discardableResult
    func adminCreate() async throws -> AuthSignUpResponse {
        try await service.signUp(
            AuthSignUpRequest(
                email: "Ann@Example.com", password: "secret1", displayName: "Ann", photoUrl: "https://x.io/a.png",
                phoneNumber: "+15551234567", emailVerified: true, disabled: false, localId: "ann"
            ),
            privileged: true
        )
    }

    @Test("an admin create stores every field, lower-cases the email and hands out no tokens")
    func adminCreateFields() async throws {
        let response = try await adminCreate()
        #expect(response.localId == "ann")
        #expect(response.email == "ann@example.com")
        #expect(response.idToken == nil && response.refreshToken == nil && response.expiresIn == nil)
        let user = try service.user(uid: "ann")
        #expect(user.email == "ann@example.com")
        #expect(user.displayName == "Ann")
        #expect(user.photoURL == "https://x.io/a.png")
        #expect(user.phoneNumber == "+15551234567")
        #expect(user.emailVerified)
        #expect(!user.disabled)
        #expect(user.createdAt == AuthServiceHarness.start)
        #expect(user.lastLoginAt == nil)
        #expect(try service.user(email: "ANN@example.com") == user)
        #expect(try service.user(phoneNumber: "+15551234567") == user)
    }

    @Test("passwords are stored only as bcrypt hashes of the configured cost")
    func passwordIsHashed() async throws {
        try await adminCreate()
        let user = try service.user(uid: "ann")
        let hash = try #require(user.passwordHash)
        #expect(hash.hasPrefix("$2b$04$"))
        #expect(!hash.contains("secret1"))
        #expect(AuthFixtures.hasher.verify("secret1", against: hash))
        let stored = try harness.store.read { db in try Data.fetchOne(db, sql: "SELECT user FROM auth_users") }
        #expect(!String(decoding: try #require(stored), as: UTF8.self).contains("secret1"))
    }

    @Test("a client sign-up is signed in: tokens for the new uid, lastLoginAt set")
    func clientSignUp() async throws {
        let response = try await service.signUp(
            AuthSignUpRequest(email: "bob@example.com", password: "secret1", displayName: "Bob"), privileged: false
        )
        #expect(response.localId.count == 28)
        #expect(response.expiresIn == "3600")
        let token = try AuthIDToken(
            parsing: try #require(response.idToken), projectId: "demo-auth", now: AuthServiceHarness.start
        )
        #expect(token.uid == response.localId)
        #expect(token.signInProvider == "password")
        #expect(token.email == "bob@example.com")
        let user = try service.user(uid: response.localId)
        #expect(user.lastLoginAt == AuthServiceHarness.start)
        #expect(try AuthRefreshToken(parsing: try #require(response.refreshToken)).localId == response.localId)
    }

    @Test("a client sign-up with neither email nor password makes an anonymous user")
    func anonymousSignUp() async throws {
        let response = try await service.signUp(AuthSignUpRequest(), privileged: false)
        let user = try service.user(uid: response.localId)
        #expect(user.isAnonymous)
        let token = try AuthIDToken(
            parsing: try #require(response.idToken), projectId: "demo-auth", now: AuthServiceHarness.start
        )
        #expect(token.signInProvider == "anonymous")
        #expect(token.claims["provider_id"] == "anonymous")
    }

    @Test("creating a user emits user.v1.created with the UserRecord and its metadata times")
    func createdEvent() async throws {
        try await adminCreate()
        let event = try #require(harness.recorder.events.first)
        #expect(harness.recorder.events.count == 1)
        #expect(event.type == "google.firebase.auth.user.v1.created")
        #expect(event.source == "//firebaseauth.googleapis.com/projects/demo-auth")
        #expect(event.subject == "users/ann")
        #expect(event.time == AuthServiceHarness.start)
        let record = try JSONDecoder().decode(UserRecord.self, from: try #require(event.data))
        #expect(record.uid == "ann")
        #expect(record.email == "ann@example.com")
        #expect(record.displayName == "Ann")
        #expect(record.phoneNumber == "+15551234567")
        #expect(record.emailVerified)
        #expect(record.metadata.creationTime == AuthServiceHarness.start)
        #expect(record.metadata.lastSignInTime == nil)
        #expect(record.passwordHash == nil)
        #expect(Set(record.providerData.map(\.providerId)) == ["password", "phone"])
        let text = String(decoding: try #require(event.data), as: UTF8.self)
        #expect(text.contains("2023-11-14T22:13:20.25"))
    }

    static let signUpCases: [(AuthSignUpRequest, Bool, String)] = [
        (AuthSignUpRequest(email: "a@b.co", password: "secret1", localId: "x"), false, "UNEXPECTED_PARAMETER : User ID"),
        (AuthSignUpRequest(password: "secret1"), false, "MISSING_EMAIL"),
        (AuthSignUpRequest(email: "a@b.co"), false, "MISSING_PASSWORD"),
        (AuthSignUpRequest(email: "not-an-email", password: "secret1"), false, "INVALID_EMAIL"),
        (AuthSignUpRequest(email: "not-an-email"), true, "INVALID_EMAIL"),
        (AuthSignUpRequest(email: "a@b.co", password: "short"), false,
         "WEAK_PASSWORD : Password should be at least 6 characters"),
        (AuthSignUpRequest(phoneNumber: "555-1234"), true, "INVALID_PHONE_NUMBER : Invalid format."),
        (AuthSignUpRequest(localId: String(repeating: "x", count: 129)), true,
         "INVALID_LOCAL_ID : User ID must be at most 128 characters"),
        (AuthSignUpRequest(localId: "ann"), true, "DUPLICATE_LOCAL_ID"),
        (AuthSignUpRequest(email: "ANN@example.com", password: "secret1"), false, "EMAIL_EXISTS"),
        (AuthSignUpRequest(email: "ann@example.com"), true, "EMAIL_EXISTS"),
        (AuthSignUpRequest(phoneNumber: "+15551234567"), true, "PHONE_NUMBER_EXISTS"),
    ]

    @Test("bad sign-ups throw the Identity Toolkit message with HTTP 400, store nothing and emit nothing",
          arguments: signUpCases)
    func signUpErrors(request: AuthSignUpRequest, privileged: Bool, message: String) async throws {
        try await adminCreate()
        harness.recorder.reset()
        let error = await AuthServiceHarness.error { try await service.signUp(request, privileged: privileged) }
        #expect(error?.message == message)
        #expect(error?.httpStatus == 400)
        #expect(harness.recorder.events.isEmpty)
        #expect(try service.listUsers().users.map(\.localId) == ["ann"])
    }

    @Test("lookup takes arrays of uids, emails, phones and federated ids, each user once")
    func lookupArrays() async throws {
        try await adminCreate()
        try await service.importUsers([
            "users": [["localId": "fb", "providerUserInfo": [["providerId": "facebook.com", "rawId": "123"]]]],
        ])
        let users = try service.lookup(
            AuthLookupRequest(
                localId: ["ann", "nobody"], email: ["ANN@example.com"], phoneNumber: ["+15550000000"],
                federatedUserId: [.init(providerId: "facebook.com", rawId: "123"), .init(providerId: nil, rawId: "1")]
            )
        )
        #expect(users.map(\.localId) == ["ann", "fb"])
        #expect(try service.lookup(AuthLookupRequest(localId: ["nobody"])).isEmpty)
        #expect(AuthService.lookupResponse([]) == ["kind": "identitytoolkit#GetAccountInfoResponse"])
        #expect(AuthService.lookupResponse(users)["users"]?.arrayValue?.count == 2)
        for lookup in [{ try service.user(uid: "x") }, { try service.user(email: "x@y.z") },
            { try service.user(phoneNumber: "+1555") }] as [() async throws -> AuthUser]
        {
            await #expect(AuthServiceHarness.error { _ = try await lookup() }?.message == "USER_NOT_FOUND")
        }
    }

    @Test("the client forms read the ID token: lookup, delete, and the token errors")
    func idTokenForms() async throws {
        let response = try await service.signUp(AuthSignUpRequest(email: "c@d.io", password: "secret1"), privileged: false)
        let token = try #require(response.idToken)
        #expect(try service.lookup(idToken: token).localId == response.localId)
        await #expect(AuthServiceHarness.error { _ = try service.lookup(idToken: nil) }?.message == "MISSING_ID_TOKEN")
        await #expect(AuthServiceHarness.error { _ = try service.lookup(idToken: "x.y.z") }?.message == "INVALID_ID_TOKEN")
        try await service.update(AuthUpdateRequest(localId: response.localId, disableUser: true))
        await #expect(AuthServiceHarness.error { _ = try service.lookup(idToken: token) }?.message == "USER_DISABLED")
        try await service.update(AuthUpdateRequest(localId: response.localId, disableUser: false))
        harness.recorder.reset()
        #expect(try await service.delete(idToken: token).localId == response.localId)
        #expect(harness.recorder.events.map(\.type) == ["google.firebase.auth.user.v1.deleted"])
        await #expect(AuthServiceHarness.error { _ = try service.lookup(idToken: token) }?.message == "USER_NOT_FOUND")
    }
}
