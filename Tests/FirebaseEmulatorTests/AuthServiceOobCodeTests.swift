import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("AuthService: e-mail action codes")
struct AuthServiceOobCodeTests {
    let harness: AuthServiceHarness
    var service: AuthService { harness.service }
    static let base = "http://127.0.0.1:4400"

    init() async throws {
        harness = try AuthServiceHarness()
        try await harness.service.signUp(
            AuthSignUpRequest(email: "ann@example.com", password: "secret1", localId: "ann"), privileged: true)
        harness.recorder.reset()
    }

    func message(_ body: () async throws -> Void) async -> String? { await AuthFixtures.message(body) }

    /// An administrator's code for `email`, link returned.
    func code(_ kind: AuthOobCode.Kind, _ email: String = "ann@example.com", newEmail: String? = nil,
        settings: AuthOobCode.Settings = AuthOobCode.Settings()) async throws -> AuthOobCode
    {
        let request = AuthOobCodeRequest(requestType: kind.rawValue, email: email, newEmail: newEmail, returnOobLink: true,
            settings: settings)
        return try #require(try await service.sendOobCode(request, privileged: true, linkBase: Self.base).code)
    }

    @Test("a reset code: checked without being used, then sets the password once, verifies the address and revokes sessions")
    func reset() async throws {
        let before = try await service.signInWithPassword(email: "ann@example.com", password: "secret1")
        let reset = try await code(.passwordReset, "Ann@Example.com",
            settings: AuthOobCode.Settings(continueUrl: "https://app.example.com/done?a=1&b=2"))
        #expect(reset.email == "ann@example.com")
        #expect(reset.localId == "ann")
        #expect(reset.expiresAt == harness.clock.now.addingTimeInterval(3600))
        #expect(reset.code.count == 48)
        #expect(reset.link == "\(Self.base)/emulator/action?mode=resetPassword&lang=en&oobCode=\(reset.code)"
            + "&apiKey=fake-api-key&continueUrl=https%3A%2F%2Fapp.example.com%2Fdone%3Fa%3D1%26b%3D2")
        #expect(try service.oobCodes() == [reset])
        #expect(try service.checkOobCode(reset.code) == reset)

        harness.clock.advance(by: .seconds(5))
        await #expect(message { try await service.resetPassword(code: reset.code, newPassword: "short") }
            == "WEAK_PASSWORD : Password should be at least 6 characters")
        try await service.resetPassword(code: reset.code, newPassword: "newsecret")
        let user = try service.user(uid: "ann")
        #expect(user.emailVerified)
        #expect(user.validSince == Date(timeIntervalSince1970: 1_700_000_005))
        #expect(try await service.signInWithPassword(email: "ann@example.com", password: "newsecret").localId == "ann")
        await #expect(message { _ = try await service.signInWithPassword(email: "ann@example.com", password: "secret1") }
            == "INVALID_PASSWORD")
        await #expect(message { _ = try service.verifyIDToken(before.idToken) } == "TOKEN_EXPIRED")
        await #expect(message { _ = try await service.refresh(grantType: "refresh_token", refreshToken: before.refreshToken) }
            == "TOKEN_EXPIRED")
        // Used: gone, and refused the second time.
        #expect(try service.oobCodes().isEmpty)
        await #expect(message { try await service.resetPassword(code: reset.code, newPassword: "another1") } == "INVALID_OOB_CODE")
        await #expect(message { _ = try service.checkOobCode(reset.code) } == "INVALID_OOB_CODE")
        #expect(harness.recorder.events.isEmpty)
    }

    @Test("codes expire: an hour for a reset, six for a sign-in link, three days for a verification")
    func expiry() async throws {
        let reset = try await code(.passwordReset)
        let signIn = try await code(.emailSignIn, "new@example.com")
        let verify = try await code(.verifyEmail)
        harness.clock.advance(by: .seconds(3599))
        #expect(try service.checkOobCode(reset.code) == reset)
        harness.clock.advance(by: .seconds(1))
        await #expect(message { try await service.resetPassword(code: reset.code, newPassword: "newsecret") } == "EXPIRED_OOB_CODE")
        harness.clock.advance(by: .seconds(5 * 3600))
        await #expect(message { _ = try await service.signInWithEmailLink(email: "new@example.com", code: signIn.code, idToken: nil) }
            == "EXPIRED_OOB_CODE")
        #expect(try service.checkOobCode(verify.code) == verify)
        harness.clock.advance(by: .seconds(3 * 86400))
        await #expect(message { _ = try await service.applyOobCode(verify.code) } == "EXPIRED_OOB_CODE")
        #expect(try service.user(uid: "ann").emailVerified == false)
        await #expect(message { _ = try service.user(email: "new@example.com") } == "USER_NOT_FOUND")
        // An expired code is kept a day after it expired, then forgotten when the next is made.
        harness.clock.advance(by: .seconds(86400))
        _ = try await code(.verifyEmail)
        #expect(try service.oobCodes().map(\.kind) == [.verifyEmail])
    }

    @Test("a code works only for its kind, its address and its user")
    func binding() async throws {
        let verify = try await code(.verifyEmail)
        await #expect(message { try await service.resetPassword(code: verify.code, newPassword: "newsecret") } == "INVALID_OOB_CODE")
        await #expect(message { _ = try await service.signInWithEmailLink(email: "ann@example.com", code: verify.code, idToken: nil) }
            == "INVALID_OOB_CODE")
        let reset = try await code(.passwordReset)
        await #expect(message { _ = try await service.applyOobCode(reset.code) } == "INVALID_OOB_CODE")
        await #expect(message { _ = try service.checkOobCode("not-a-code") } == "INVALID_OOB_CODE")
        await #expect(message { _ = try service.checkOobCode(nil) } == "MISSING_OOB_CODE")
        // Another user with the same address later is not the one the code was made for.
        try await service.delete(uid: "ann")
        try await service.signUp(AuthSignUpRequest(email: "ann@example.com", password: "secret1", localId: "ann2"),
            privileged: true)
        await #expect(message { try await service.resetPassword(code: reset.code, newPassword: "newsecret") } == "INVALID_OOB_CODE")
        await #expect(message { _ = try await service.applyOobCode(verify.code) } == "INVALID_OOB_CODE")
        #expect(try await service.signInWithPassword(email: "ann@example.com", password: "secret1").localId == "ann2")
        // A sign-in link is for the address it was sent to.
        let signIn = try await code(.emailSignIn, "new@example.com")
        await #expect(message { _ = try await service.signInWithEmailLink(email: "ann@example.com", code: signIn.code, idToken: nil) }
            == "INVALID_EMAIL : The email provided does not match the sign-in email address.")
        #expect(try service.checkOobCode(signIn.code) == signIn, "a refused address does not use the code up")
    }

    @Test("verification and change of address")
    func verification() async throws {
        let session = try await service.signInWithPassword(email: "ann@example.com", password: "secret1")
        // A client asks with its ID token.
        let asked = try await service.sendOobCode(AuthOobCodeRequest(requestType: "VERIFY_EMAIL", idToken: session.idToken),
            privileged: false, linkBase: Self.base)
        let verify = try #require(asked.code)
        #expect(verify.link.contains("mode=verifyEmail"))
        let (verified, _) = try await service.applyOobCode(verify.code)
        #expect(verified.emailVerified)
        #expect(try service.verifyIDToken(session.idToken).localId == "ann", "a verification revokes nothing")
        await #expect(message { _ = try await service.applyOobCode(verify.code) } == "INVALID_OOB_CODE")

        let change = try #require(try await service.sendOobCode(AuthOobCodeRequest(requestType: "VERIFY_AND_CHANGE_EMAIL",
            idToken: session.idToken, newEmail: "Ann.New@example.com"), privileged: false, linkBase: Self.base).code)
        #expect(change.email == "ann@example.com")
        #expect(change.newEmail == "ann.new@example.com")
        // The new address taken meanwhile: refused, and the code still works once it is free again.
        try await service.signUp(AuthSignUpRequest(email: "ann.new@example.com", localId: "squatter"), privileged: true)
        await #expect(message { _ = try await service.applyOobCode(change.code) } == "EMAIL_EXISTS")
        try await service.delete(uid: "squatter")
        harness.clock.advance(by: .seconds(5))
        let (changed, used) = try await service.applyOobCode(change.code)
        #expect(used.newEmail == "ann.new@example.com")
        #expect(changed.email == "ann.new@example.com")
        #expect(changed.emailVerified)
        await #expect(message { _ = try service.verifyIDToken(session.idToken) } == "TOKEN_EXPIRED")
    }

    @Test("sign-in links create the user the first time, verified, and sign it in after")
    func signInLink() async throws {
        let first = try await code(.emailSignIn, "Zoe@Example.com")
        #expect(first.localId == nil)
        #expect(first.link.contains("mode=signIn"))
        let (created, session, isNew) = try await service.signInWithEmailLink(email: "zoe@example.com", code: first.code,
            idToken: nil)
        #expect(isNew)
        #expect(created.email == "zoe@example.com")
        #expect(created.emailVerified)
        #expect(created.passwordHash == nil)
        let info = created.userInfo()
        #expect(info.emailLinkSignin == true)
        #expect(info.providerUserInfo?.map(\.providerId) == ["password"])
        let token = try AuthIDToken(parsing: session.idToken, projectId: "demo-auth", now: harness.clock.now)
        #expect(token.claims["firebase"]?["sign_in_provider"] == "password")
        #expect(harness.recorder.events.map(\.type) == [FirebaseEventType.authUserCreated])
        await #expect(message { _ = try await service.signInWithEmailLink(email: "zoe@example.com", code: first.code, idToken: nil) }
            == "INVALID_OOB_CODE")

        let second = try await code(.emailSignIn, "zoe@example.com")
        let (again, _, secondIsNew) = try await service.signInWithEmailLink(email: "ZOE@example.com", code: second.code,
            idToken: nil)
        #expect(!secondIsNew)
        #expect(again.localId == created.localId)
        #expect(harness.recorder.events.count == 1, "no second user.created")

        // A known user who had not verified the address has it verified by the link.
        let annLink = try await code(.emailSignIn)
        let (ann, _, annIsNew) = try await service.signInWithEmailLink(email: "ann@example.com", code: annLink.code, idToken: nil)
        #expect(!annIsNew)
        #expect(ann.localId == "ann")
        #expect(ann.emailVerified)
        #expect(try await service.signInWithPassword(email: "ann@example.com", password: "secret1").localId == "ann")
    }

    @Test("two uses of one code at once: one signs in, the other is refused")
    func concurrentUse() async throws {
        let link = try await code(.emailSignIn, "race@example.com")
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<2 {
                group.addTask { [service] in
                    do {
                        return try await service.signInWithEmailLink(email: "race@example.com", code: link.code, idToken: nil)
                            .user.localId
                    } catch let error as ServiceError {
                        return error.message
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "INVALID_OOB_CODE" || $0 == "EMAIL_EXISTS" }.count == 1, "\(outcomes)")
        #expect(harness.recorder.events.count == 1)
    }

    @Test("sendOobCode's refusals")
    func refusals() async throws {
        func send(_ request: AuthOobCodeRequest, privileged: Bool = true) async -> String? {
            await message { _ = try await service.sendOobCode(request, privileged: privileged, linkBase: Self.base) }
        }
        #expect(await send(AuthOobCodeRequest(requestType: nil, email: "ann@example.com")) == "MISSING_REQ_TYPE")
        #expect(await send(AuthOobCodeRequest(requestType: "RECOVER_EMAIL", email: "ann@example.com"))?
            .hasPrefix("INVALID_REQ_TYPE : RECOVER_EMAIL") == true)
        #expect(await send(AuthOobCodeRequest(requestType: "PASSWORD_RESET", email: "ann@example.com", returnOobLink: true),
            privileged: false) == "INSUFFICIENT_PERMISSION")
        #expect(await send(AuthOobCodeRequest(requestType: "PASSWORD_RESET", email: "ann@example.com",
            settings: AuthOobCode.Settings(continueUrl: "/relative")))
            == "INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))")
        #expect(await send(AuthOobCodeRequest(requestType: "PASSWORD_RESET")) == "MISSING_EMAIL")
        #expect(await send(AuthOobCodeRequest(requestType: "PASSWORD_RESET", email: "not-an-address")) == "INVALID_EMAIL")
        #expect(await send(AuthOobCodeRequest(requestType: "PASSWORD_RESET", email: "nobody@example.com")) == "EMAIL_NOT_FOUND")
        #expect(await send(AuthOobCodeRequest(requestType: "VERIFY_EMAIL", email: "nobody@example.com")) == "USER_NOT_FOUND")
        #expect(await send(AuthOobCodeRequest(requestType: "VERIFY_EMAIL", email: "ann@example.com"), privileged: false)
            == "MISSING_ID_TOKEN")
        #expect(await send(AuthOobCodeRequest(requestType: "VERIFY_AND_CHANGE_EMAIL", email: "ann@example.com"))
            == "MISSING_NEW_EMAIL")
        try await service.signUp(AuthSignUpRequest(email: "bob@example.com", localId: "bob"), privileged: true)
        #expect(await send(AuthOobCodeRequest(requestType: "VERIFY_AND_CHANGE_EMAIL", email: "ann@example.com",
            newEmail: "bob@example.com")) == "EMAIL_EXISTS")
        #expect(try service.oobCodes().isEmpty)

        // With improved e-mail privacy, an unknown address is not told apart: no error, no code.
        try await service.updateEmulatorConfig(enableImprovedEmailPrivacy: true)
        let hidden = try await service.sendOobCode(AuthOobCodeRequest(requestType: "PASSWORD_RESET", email: "nobody@example.com"),
            privileged: false, linkBase: Self.base)
        #expect(hidden.email == "nobody@example.com")
        #expect(hidden.code == nil)
        #expect(try service.oobCodes().isEmpty)
    }

    @Test("a reset unlinks federated providers; codes survive a restart on disk; clearing them ends them")
    func resetUnlinksAndPersists() async throws {
        let directory = AuthServiceHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let made: AuthOobCode
        do {
            let first = try AuthServiceHarness(directory: directory)
            _ = try await first.service.clientSignInWithIdp(postBody: #"providerId=google.com&id_token={"sub":"g1","email":"gia@example.com"}"#,
                requestUri: "http://localhost", returnIdpCredential: false)
            made = try #require(try await first.service.sendOobCode(AuthOobCodeRequest(requestType: "PASSWORD_RESET",
                email: "gia@example.com", returnOobLink: true), privileged: true, linkBase: Self.base).code)
        }
        let second = try AuthServiceHarness(directory: directory)
        #expect(try second.service.oobCodes() == [made])
        try await second.service.resetPassword(code: made.code, newPassword: "newsecret")
        let user = try second.service.user(email: "gia@example.com")
        #expect(user.userInfo().providerUserInfo?.map(\.providerId) == ["password"])
        let other = try #require(try await second.service.sendOobCode(AuthOobCodeRequest(requestType: "VERIFY_EMAIL",
            email: "gia@example.com", returnOobLink: true), privileged: true, linkBase: Self.base).code)
        try await second.service.deleteOobCodes()
        await #expect(AuthFixtures.message { _ = try await second.service.applyOobCode(other.code) } == "INVALID_OOB_CODE")
    }
}
