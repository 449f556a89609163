import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("AuthService: password sign-in and token refresh")
struct AuthServiceSignInTests {
    let harness: AuthServiceHarness
    var service: AuthService { harness.service }

    init() async throws {
        harness = try AuthServiceHarness()
        try await harness.service.signUp(
            AuthSignUpRequest(email: "ann@example.com", password: "secret1", localId: "ann"), privileged: true
        )
        try await harness.service.signUp(AuthSignUpRequest(email: "nopass@example.com", localId: "np"), privileged: true)
        harness.recorder.reset()
    }

    func message(_ body: () async throws -> Void) async -> String? { await AuthServiceHarness.error(body)?.message }

    @Test("signs in with the password, records lastLoginAt and hands out tokens")
    func signIn() async throws {
        harness.clock.advance(by: .seconds(90))
        let response = try await service.signInWithPassword(email: "Ann@Example.com", password: "secret1")
        #expect(response.kind == "identitytoolkit#VerifyPasswordResponse")
        #expect(response.registered)
        #expect(response.localId == "ann")
        #expect(response.email == "ann@example.com")
        #expect(response.expiresIn == "3600")
        let later = AuthServiceHarness.start.addingTimeInterval(90)
        #expect(try service.user(uid: "ann").lastLoginAt == later)
        let token = try AuthIDToken(parsing: response.idToken, projectId: "demo-auth", now: later)
        #expect(token.uid == "ann")
        #expect(harness.recorder.events.isEmpty)
    }

    @Test("sign-in errors", arguments: [
        (String?.none, String?.some("secret1"), "MISSING_EMAIL"),
        ("nope", "secret1", "INVALID_EMAIL"),
        ("ann@example.com", nil, "MISSING_PASSWORD"),
        ("ann@example.com", "", "MISSING_PASSWORD"),
        ("who@example.com", "secret1", "EMAIL_NOT_FOUND"),
        ("ann@example.com", "wrong-password", "INVALID_PASSWORD"),
        ("nopass@example.com", "secret1", "INVALID_PASSWORD"),
    ])
    func signInErrors(email: String?, password: String?, expected: String) async {
        await #expect(message { _ = try await service.signInWithPassword(email: email, password: password) } == expected)
        await #expect(AuthServiceHarness.error { _ = try await service.signInWithPassword(email: email, password: password) }?
            .httpStatus == 400)
    }

    @Test("a disabled user cannot sign in, with or without improved email privacy")
    func disabled() async throws {
        try await service.update(AuthUpdateRequest(localId: "ann", disableUser: true))
        await #expect(message { _ = try await service.signInWithPassword(email: "ann@example.com", password: "secret1") }
            == "USER_DISABLED")
        try await service.updateEmulatorConfig(enableImprovedEmailPrivacy: true)
        await #expect(message { _ = try await service.signInWithPassword(email: "ann@example.com", password: "secret1") }
            == "USER_DISABLED")
    }

    @Test("improved email privacy answers INVALID_LOGIN_CREDENTIALS for unknown emails and wrong passwords")
    func improvedPrivacy() async throws {
        #expect(!service.emulatorConfig.enableImprovedEmailPrivacy)
        let config = try await service.updateEmulatorConfig(enableImprovedEmailPrivacy: true)
        #expect(config.json["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"] == true)
        #expect(try await service.updateEmulatorConfig(enableImprovedEmailPrivacy: nil) == config)
        for (email, password) in [("who@example.com", "secret1"), ("ann@example.com", "wrong!!"),
            ("nopass@example.com", "secret1")]
        {
            await #expect(message { _ = try await service.signInWithPassword(email: email, password: password) }
                == "INVALID_LOGIN_CREDENTIALS")
        }
        #expect(try await service.signInWithPassword(email: "ann@example.com", password: "secret1").localId == "ann")
    }

    @Test("a refresh token gives fresh tokens and records lastRefreshAt")
    func refresh() async throws {
        let session = try await service.signInWithPassword(email: "ann@example.com", password: "secret1")
        harness.clock.advance(by: .seconds(30))
        let refreshed = try await service.refresh(grantType: "refresh_token", refreshToken: session.refreshToken)
        #expect(refreshed.userId == "ann")
        #expect(refreshed.tokenType == "Bearer")
        #expect(refreshed.expiresIn == "3600")
        #expect(refreshed.accessToken == refreshed.idToken)
        #expect(refreshed.projectId == AuthService.projectNumber)
        let later = AuthServiceHarness.start.addingTimeInterval(30)
        #expect(try AuthIDToken(parsing: refreshed.idToken, projectId: "demo-auth", now: later).issuedAt
            == Date(timeIntervalSince1970: 1_700_000_030))
        #expect(try service.user(uid: "ann").lastRefreshAt == later)
        let wire = try JSONSerialization.jsonObject(with: JSONEncoder().encode(refreshed)) as? [String: Any]
        #expect(Set(wire?.keys.map { $0 } ?? []) == [
            "id_token", "access_token", "expires_in", "refresh_token", "token_type", "user_id", "project_id",
        ])
        #expect(try await service.refresh(grantType: "refresh_token", refreshToken: refreshed.refreshToken).userId == "ann")
    }

    @Test("refresh errors: grant type, token, revoked, disabled and deleted users")
    func refreshErrors() async throws {
        let token = try await service.signInWithPassword(email: "ann@example.com", password: "secret1").refreshToken
        await #expect(message { _ = try await service.refresh(grantType: nil, refreshToken: token) } == "MISSING_GRANT_TYPE")
        await #expect(message { _ = try await service.refresh(grantType: "code", refreshToken: token) } == "INVALID_GRANT_TYPE")
        await #expect(message { _ = try await service.refresh(grantType: "refresh_token", refreshToken: "") }
            == "MISSING_REFRESH_TOKEN")
        await #expect(message { _ = try await service.refresh(grantType: "refresh_token", refreshToken: "garbage") }
            == "INVALID_REFRESH_TOKEN")
        try await service.update(AuthUpdateRequest(localId: "ann", disableUser: true))
        await #expect(message { _ = try await service.refresh(grantType: "refresh_token", refreshToken: token) } == "USER_DISABLED")
        try await service.update(AuthUpdateRequest(localId: "ann", disableUser: false, validSince: 1_700_000_100))
        await #expect(message { _ = try await service.refresh(grantType: "refresh_token", refreshToken: token) } == "TOKEN_EXPIRED")
        try await service.delete(uid: "ann")
        await #expect(message { _ = try await service.refresh(grantType: "refresh_token", refreshToken: token) }
            == "USER_NOT_FOUND")
    }

    @Test("a token of another project is refused")
    func otherProject() async throws {
        let other = try AuthServiceHarness(project: "other")
        try await other.service.signUp(AuthSignUpRequest(email: "ann@example.com", password: "secret1"), privileged: true)
        let token = try await other.service.signInWithPassword(email: "ann@example.com", password: "secret1")
        await #expect(message { _ = try await service.refresh(grantType: "refresh_token", refreshToken: token.refreshToken) }
            == "INVALID_REFRESH_TOKEN")
        await #expect(message { _ = try service.verifyIDToken(token.idToken) } == "INVALID_ID_TOKEN")
    }
}
