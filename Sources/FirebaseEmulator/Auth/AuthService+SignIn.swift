import CloudFunctions
import Foundation
import GRDB

extension AuthService {
    /// Signs a user in with email and password (`accounts:signInWithPassword`), verifying the bcrypt hash
    /// (including imported `$2a$`/`$2b$`/`$2y$` hashes) and recording `lastLoginAt`.
    ///
    /// With improved email privacy on, an unknown email, a user without a password and a wrong password all
    /// answer `INVALID_LOGIN_CREDENTIALS`; a disabled account still answers `USER_DISABLED`, as the emulator does.
    ///
    /// - Throws: `MISSING_EMAIL`, `INVALID_EMAIL`, `MISSING_PASSWORD`, `EMAIL_NOT_FOUND`, `USER_DISABLED`,
    ///   `INVALID_PASSWORD`, `INVALID_LOGIN_CREDENTIALS`.
    package func signInWithPassword(email: String?, password: String?) async throws -> AuthSignInResponse {
        let (found, hash) = try checkPassword(email: email, password: password)
        let (user, session) = try await recordSignIn(found, provider: "password", changes: found, sessionClaims: [:],
            check: stillHasPassword(hash))
        return Self.signInResponse(user, session)
    }

    /// A client's password sign-in as the REST route serves it: the deployed
    /// `beforeUserSignedIn` function runs first; what it changes is saved with the sign-in,
    /// its session claims go into this ID token, and when it refuses nothing is saved and the
    /// client gets `BLOCKING_FUNCTION_ERROR_RESPONSE`.
    ///
    /// - Throws: what ``signInWithPassword(email:password:)`` throws, and `BLOCKING_FUNCTION_ERROR_RESPONSE : ((…))`.
    package func clientSignInWithPassword(email: String?, password: String?) async throws -> AuthSignInResponse {
        let (found, hash) = try checkPassword(email: email, password: password)
        let (user, session) = try await signInRunningBlocking(found, provider: "password", check: stillHasPassword(hash))
        return Self.signInResponse(user, session)
    }

    /// Signs a known user in as a client sign-in does: the deployed `beforeUserSignedIn` runs
    /// first; what it changes is saved with the sign-in, and its session claims (over `claims`)
    /// go into this session's ID tokens.
    ///
    /// - Throws: what ``recordSignIn(_:provider:changes:sessionClaims:check:update:)`` throws, and
    ///   `BLOCKING_FUNCTION_ERROR_RESPONSE : ((…))`.
    ///
    /// - Parameters:
    ///   - signInMethod: what the functions are told the method is (`provider` when `nil`).
    ///   - update: changes the user as stored, in the sign-in's transaction.
    func signInRunningBlocking(
        _ found: AuthUser,
        provider: String,
        signInMethod: String? = nil,
        claims: [String: JSONValue] = [:],
        check: @escaping @Sendable (AuthUser?) throws -> Void = { _ in },
        update: @escaping @Sendable (inout AuthUser, GRDB.Database) throws -> Void = { _, _ in }
    ) async throws -> (AuthUser, AuthSession) {
        var candidate = found
        candidate.lastLoginAt = clock.now
        let outcome = try await runBlockingFunctions([.beforeSignIn], on: candidate,
            signInMethod: signInMethod ?? provider)
        return try await recordSignIn(found, provider: provider, changes: outcome.user,
            sessionClaims: claims.merging(outcome.sessionClaims) { $1 }, check: check, update: update)
    }

    /// The stored user whose password this is, and its hash.
    private func checkPassword(email: String?, password: String?) throws -> (AuthUser, String) {
        guard let email else { throw ServiceError(.invalidArgument, "MISSING_EMAIL") }
        guard AuthUserValidation.isValidEmail(email) else { throw ServiceError(.invalidArgument, "INVALID_EMAIL") }
        guard let password, !password.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_PASSWORD") }
        let canonical = try AuthUserValidation.canonicalEmail(email)
        let privacy = emulatorConfig.enableImprovedEmailPrivacy
        let found = try read { db in try AuthUserStorage.user(db, project: project, email: canonical) }
        guard let found else {
            throw ServiceError(.invalidArgument, privacy ? "INVALID_LOGIN_CREDENTIALS" : "EMAIL_NOT_FOUND")
        }
        guard !found.disabled else { throw ServiceError(.invalidArgument, "USER_DISABLED") }
        guard let hash = found.passwordHash, hasher.verify(password, against: hash) else {
            throw ServiceError(.invalidArgument, privacy ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD")
        }
        return (found, hash)
    }

    /// Fails a sign-in whose user no longer has password `hash` (deleted, or the password changed
    /// while the functions ran).
    private func stillHasPassword(_ hash: String) -> @Sendable (AuthUser?) throws -> Void {
        let privacy = emulatorConfig.enableImprovedEmailPrivacy
        return { stored in
            guard stored?.passwordHash == hash else {
                throw ServiceError(.invalidArgument, privacy ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD")
            }
        }
    }

    private static func signInResponse(_ user: AuthUser, _ session: AuthSession) -> AuthSignInResponse {
        AuthSignInResponse(
            localId: user.localId, email: user.email ?? "", displayName: user.displayName, idToken: session.idToken,
            refreshToken: session.refreshToken, expiresIn: session.expiresIn
        )
    }

    /// Records the sign-in of an existing user with the profile fields a blocking function
    /// changed in `changes`, and issues its tokens.
    ///
    /// - Parameters:
    ///   - check: checks the user as stored now, `nil` when deleted (it may have changed while
    ///     the functions ran); throwing fails the sign-in.
    ///   - update: changes the user as stored, in the same transaction; throwing fails the sign-in.
    /// - Throws: `USER_NOT_FOUND` when the user was deleted meanwhile, `USER_DISABLED`, or what
    ///   `check` or `update` throws.
    func recordSignIn(
        _ found: AuthUser,
        provider: String,
        changes: AuthUser,
        sessionClaims: [String: JSONValue],
        check: @escaping @Sendable (AuthUser?) throws -> Void = { _ in },
        update: @escaping @Sendable (inout AuthUser, GRDB.Database) throws -> Void = { _, _ in }
    ) async throws -> (AuthUser, AuthSession) {
        let now = clock.now
        let user = try await write { [self] transaction in
            let stored = try AuthUserStorage.user(transaction.db, project: project, uid: found.localId)
            try check(stored)
            guard var user = stored else { throw ServiceError(.invalidArgument, "USER_NOT_FOUND") }
            guard !user.disabled else { throw ServiceError(.invalidArgument, "USER_DISABLED") }
            user.displayName = changes.displayName
            user.photoURL = changes.photoURL
            user.emailVerified = changes.emailVerified
            user.customClaims = changes.customClaims
            user.disabled = changes.disabled
            user.lastLoginAt = now
            user.lastRefreshAt = now
            try update(&user, transaction.db)
            try AuthUserStorage.save(transaction.db, project: project, user: user)
            return user
        }
        // A blocking function that disabled the user has it saved so, and the sign-in fails.
        if user.disabled { throw ServiceError(.invalidArgument, "USER_DISABLED") }
        var generator = makeGenerator()
        let session = issueSession(for: user, signInProvider: provider, now: now, sessionClaims: sessionClaims,
            using: &generator)
        return (user, session)
    }

    /// Exchanges a refresh token for fresh tokens (`securetoken.googleapis.com/v1/token`), recording
    /// `lastRefreshAt`.
    ///
    /// - Parameters:
    ///   - grantType: must be `refresh_token`.
    ///   - refreshToken: a token from sign-up, sign-in or an earlier refresh.
    /// - Throws: `MISSING_GRANT_TYPE`, `INVALID_GRANT_TYPE`, `MISSING_REFRESH_TOKEN`, `INVALID_REFRESH_TOKEN`,
    ///   `USER_NOT_FOUND`, `TOKEN_EXPIRED` (revoked through `validSince`), `USER_DISABLED`.
    package func refresh(grantType: String?, refreshToken: String?) async throws -> AuthRefreshResponse {
        guard let grantType, !grantType.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_GRANT_TYPE") }
        guard grantType == "refresh_token" else { throw ServiceError(.invalidArgument, "INVALID_GRANT_TYPE") }
        guard let refreshToken, !refreshToken.isEmpty else {
            throw ServiceError(.invalidArgument, "MISSING_REFRESH_TOKEN")
        }
        let token = try AuthRefreshToken(parsing: refreshToken)
        let now = clock.now
        let user = try await write { [self] transaction in
            var user = try AuthUserStorage.user(transaction.db, project: project, uid: token.localId)
            try token.validate(projectId: project, user: user)
            user?.lastRefreshAt = now
            guard let user else { throw ServiceError(.invalidArgument, "USER_NOT_FOUND") }
            try AuthUserStorage.save(transaction.db, project: project, user: user)
            return user
        }
        var generator = makeGenerator()
        let session = issueSession(
            // When the user last signed in, as the emulator says: not when this session was refreshed.
            for: user, signInProvider: token.signInProvider, now: now, authTime: user.lastLoginAt ?? token.issuedAt,
            sessionClaims: token.sessionClaims, using: &generator
        )
        return AuthRefreshResponse(
            idToken: session.idToken, accessToken: session.idToken, expiresIn: session.expiresIn,
            refreshToken: session.refreshToken, userId: user.localId, projectId: Self.projectNumber
        )
    }

    /// Reads and checks a client's ID token against the stored user.
    ///
    /// - Throws: `MISSING_ID_TOKEN`, `INVALID_ID_TOKEN`, `USER_NOT_FOUND`, `TOKEN_EXPIRED` (issued before
    ///   `validSince`), `USER_DISABLED`. Expiry is not checked, as in the emulator.
    public func verifyIDToken(_ idToken: String?) throws -> AuthUser {
        try verifiedIDToken(idToken).user
    }

    /// ``verifyIDToken(_:)``, with the token as read (its sign-in provider, say).
    func verifiedIDToken(_ idToken: String?) throws -> (token: AuthIDToken, user: AuthUser) {
        guard let idToken, !idToken.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_ID_TOKEN") }
        let token = try AuthIDToken(parsing: idToken, projectId: project, now: clock.now, checksExpiry: false)
        let user = try read { db in try AuthUserStorage.user(db, project: project, uid: token.uid) }
        try token.validate(for: user)
        guard let user else { throw ServiceError(.invalidArgument, "USER_NOT_FOUND") }
        return (token, user)
    }

    /// A fresh ID token and refresh token for `user`.
    func issueSession(
        for user: AuthUser,
        signInProvider: String,
        now: Date,
        authTime: Date? = nil,
        sessionClaims: [String: JSONValue] = [:],
        using generator: inout SplitMixRandom
    ) -> AuthSession {
        var claims = AuthIDToken.claims(
            for: user, projectId: project, signInProvider: signInProvider, now: now, authTime: authTime
        )
        // A blocking function's session claims join the custom claims; the standard ones still win.
        for (name, value) in sessionClaims where claims[name] == nil || user.customClaims[name] != nil {
            claims[name] = value
        }
        let idToken = AuthIDToken.encode(claims: claims)
        let refresh = AuthRefreshToken(
            localId: user.localId, projectId: project, signInProvider: signInProvider, issuedAt: now,
            sessionClaims: sessionClaims, using: &generator
        )
        return AuthSession(idToken: idToken, refreshToken: refresh.encoded)
    }
}
