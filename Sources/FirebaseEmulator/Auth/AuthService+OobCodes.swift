import CloudFunctions
import Foundation
import GRDB

/// E-mail actions: the codes `accounts:sendOobCode` "mails" (kept for tests to read, listed at
/// `/emulator/v1/projects/{p}/oobCodes`), and the calls that use them: `accounts:resetPassword`,
/// `accounts:update` with an `oobCode`, and `accounts:signInWithEmailLink`.
///
/// A code works once: it is deleted in the transaction that does what it allows, so two uses
/// at once cannot both succeed. A code that was never made, was used, or is for another kind
/// of action or another address answers `INVALID_OOB_CODE`; one past its lifetime
/// (``AuthOobCode/Kind/lifetime``) answers `EXPIRED_OOB_CODE`.
extension AuthService {
    /// Makes the code a `sendOobCode` asks for.
    ///
    /// - Parameters:
    ///   - privileged: whether the caller is an administrator (only they may ask `returnOobLink`,
    ///     and name a user by `email` for a verification or a change).
    ///   - linkBase: the scheme and authority the emulator is reached at, for the link.
    /// - Returns: the address the code is for (lower-cased), and the code; `nil` when a reset
    ///   is asked for an unknown address with improved e-mail privacy on (no code, no error).
    /// - Throws: `MISSING_REQ_TYPE`, `INVALID_REQ_TYPE : …`, `INSUFFICIENT_PERMISSION : …`,
    ///   `INVALID_CONTINUE_URI : …`, `MISSING_EMAIL`, `INVALID_EMAIL`, `EMAIL_NOT_FOUND`,
    ///   `USER_NOT_FOUND`, `MISSING_NEW_EMAIL`, `EMAIL_EXISTS`, and what an `idToken` check throws.
    package func sendOobCode(
        _ request: AuthOobCodeRequest,
        privileged: Bool,
        linkBase: String
    ) async throws -> (email: String, code: AuthOobCode?) {
        guard let type = request.requestType, !type.isEmpty, type != "OOB_REQ_TYPE_UNSPECIFIED" else {
            throw ServiceError(.invalidArgument, "MISSING_REQ_TYPE")
        }
        guard let kind = AuthOobCode.Kind(rawValue: type) else {
            throw ServiceError(.invalidArgument, "INVALID_REQ_TYPE : \(type) is not one of "
                + AuthOobCode.Kind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if request.returnOobLink == true, !privileged {
            throw ServiceError(.invalidArgument, "INSUFFICIENT_PERMISSION")
        }
        let settings = request.settings
        if let continueUrl = settings.continueUrl {
            guard let url = URL(string: continueUrl), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host?.isEmpty == false
            else {
                throw ServiceError(.invalidArgument,
                    "INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))")
            }
        }
        let email: String
        var user: AuthUser?
        var newEmail: String?
        switch kind {
        case .passwordReset:
            email = try Self.canonicalAddress(request.email)
            user = try read { db in try AuthUserStorage.user(db, project: project, email: email) }
            if user == nil {
                if emulatorConfig.enableImprovedEmailPrivacy { return (email, nil) }
                throw ServiceError(.invalidArgument, "EMAIL_NOT_FOUND")
            }
        case .emailSignIn:
            email = try Self.canonicalAddress(request.email)
        case .verifyEmail, .verifyAndChangeEmail:
            if kind == .verifyAndChangeEmail {
                guard let requested = request.newEmail, !requested.isEmpty else {
                    throw ServiceError(.invalidArgument, "MISSING_NEW_EMAIL")
                }
                newEmail = try Self.canonicalAddress(requested)
            }
            let found: AuthUser
            if privileged, request.idToken == nil {
                let named = try Self.canonicalAddress(request.email)
                guard let stored = try read({ db in try AuthUserStorage.user(db, project: project, email: named) }) else {
                    throw ServiceError(.invalidArgument, "USER_NOT_FOUND")
                }
                found = stored
            } else {
                found = try verifyIDToken(request.idToken)
            }
            guard let current = found.email else { throw ServiceError(.invalidArgument, "MISSING_EMAIL") }
            email = current
            user = found
        }
        let now = clock.now
        let code = AuthOobCode.generateCode()
        let record = AuthOobCode(
            code: code, kind: kind, email: email, localId: user?.localId, newEmail: newEmail, settings: settings,
            link: AuthOobCode.link(base: linkBase, kind: kind, code: code, continueUrl: settings.continueUrl),
            createdAt: now, expiresAt: now.addingTimeInterval(kind.lifetime.seconds))
        try await write { [self, newEmail, user] transaction in
            if let newEmail, let other = try AuthUserStorage.user(transaction.db, project: project, email: newEmail),
                other.localId != user?.localId
            {
                throw ServiceError(.invalidArgument, "EMAIL_EXISTS")
            }
            try AuthOobCodeStorage.insert(transaction.db, project: project, code: record, now: now)
        }
        return (email, record)
    }

    /// The code as it stands, for a client checking it before use (`accounts:resetPassword`
    /// without `newPassword`: `verifyPasswordResetCode`, `checkActionCode`). Nothing changes.
    ///
    /// - Throws: `MISSING_OOB_CODE`, `INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`.
    package func checkOobCode(_ code: String?) throws -> AuthOobCode {
        let now = clock.now
        return try read { db in try usableCode(db, code, kinds: Set(AuthOobCode.Kind.allCases), now: now) }
    }

    /// Sets a new password with a password-reset code (`accounts:resetPassword`) and uses the
    /// code up. As the service does, the e-mail counts as verified (its owner read the mail),
    /// the user's earlier sessions are revoked (`validSince`), and federated providers are
    /// unlinked.
    ///
    /// - Returns: the code used.
    /// - Throws: `MISSING_OOB_CODE`, `INVALID_OOB_CODE` (also for a user deleted or given
    ///   another address since), `EXPIRED_OOB_CODE`, `WEAK_PASSWORD : …` (the code stays
    ///   usable), `USER_DISABLED`.
    @discardableResult
    package func resetPassword(code: String?, newPassword: String) async throws -> AuthOobCode {
        let now = clock.now
        _ = try read { db in try usableCode(db, code, kinds: [.passwordReset], now: now) }
        try AuthUserValidation.validatePassword(newPassword)
        let hash = hasher.hash(newPassword)
        return try await write { [self] transaction in
            let used = try usableCode(transaction.db, code, kinds: [.passwordReset], now: now)
            var user = try boundUser(transaction.db, of: used)
            try AuthOobCodeStorage.delete(transaction.db, project: project, code: used.code)
            user.passwordHash = hash
            user.passwordUpdatedAt = now
            user.emailVerified = true
            user.validSince = AuthTimestamp.date(seconds: AuthTimestamp.seconds(now))
            user.providerData.removeAll()
            try AuthUserStorage.save(transaction.db, project: project, user: user)
            return used
        }
    }

    /// Applies a verification or e-mail change code (`accounts:update` with `oobCode`) and uses
    /// it up: the address is verified, or becomes the new one, verified; a change revokes
    /// earlier sessions, as any change of address does.
    ///
    /// - Returns: the user as stored, and the code used.
    /// - Throws: `MISSING_OOB_CODE`, `INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`, `USER_DISABLED`,
    ///   `EMAIL_EXISTS` (the new address was taken meanwhile; the code stays usable).
    package func applyOobCode(_ code: String?) async throws -> (user: AuthUser, code: AuthOobCode) {
        let now = clock.now
        return try await write { [self] transaction in
            let used = try usableCode(transaction.db, code, kinds: [.verifyEmail, .verifyAndChangeEmail], now: now)
            var user = try boundUser(transaction.db, of: used)
            try AuthOobCodeStorage.delete(transaction.db, project: project, code: used.code)
            if let newEmail = used.newEmail {
                user.email = newEmail
                user.validSince = AuthTimestamp.date(seconds: AuthTimestamp.seconds(now))
                try checkUnique(user, in: transaction.db, replacing: true)
            }
            user.emailVerified = true
            try AuthUserStorage.save(transaction.db, project: project, user: user)
            return (user, used)
        }
    }

    /// Signs in with an e-mail link (`accounts:signInWithEmailLink`): the user with that
    /// address, created when there is none, or, with `idToken`, the signed-in user, who gets
    /// the address. The blocking functions run as for any sign-up or sign-in (told the method
    /// is `emailLink`); the address is verified, and the code used up with the sign-in.
    ///
    /// - Returns: the user, its session (signed in with `password`, as the service says), and
    ///   whether it was created.
    /// - Throws: `MISSING_EMAIL`, `MISSING_OOB_CODE`, `INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`,
    ///   `INVALID_EMAIL : The email provided does not match the sign-in email address.`,
    ///   `EMAIL_EXISTS` (linking an address another user has), `USER_DISABLED`,
    ///   `BLOCKING_FUNCTION_ERROR_RESPONSE : ((…))`, and what an `idToken` check throws.
    package func signInWithEmailLink(
        email: String?,
        code: String?,
        idToken: String?
    ) async throws -> (user: AuthUser, session: AuthSession, isNewUser: Bool) {
        let caller = try idToken.map { try verifyIDToken($0) }
        guard let email, !email.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_EMAIL") }
        let address = email.lowercased()
        let now = clock.now
        let existing = try read { db in
            let used = try usableCode(db, code, kinds: [.emailSignIn], now: now)
            guard used.email == address else {
                throw ServiceError(.invalidArgument,
                    "INVALID_EMAIL : The email provided does not match the sign-in email address.")
            }
            let owner = try AuthUserStorage.user(db, project: project, email: address)
            if let caller, let owner, owner.localId != caller.localId {
                throw ServiceError(.invalidArgument, "EMAIL_EXISTS")
            }
            return caller ?? owner
        }
        @Sendable func useCode(_ db: GRDB.Database) throws {
            let used = try usableCode(db, code, kinds: [.emailSignIn], now: now)
            try AuthOobCodeStorage.delete(db, project: project, code: used.code)
        }
        if let existing {
            guard !existing.disabled else { throw ServiceError(.invalidArgument, "USER_DISABLED") }
            var candidate = existing
            candidate.email = address
            candidate.emailVerified = true
            let (user, session) = try await signInRunningBlocking(candidate, provider: "password",
                signInMethod: "emailLink", update: { [self] user, db in
                try useCode(db)
                // Verified by the link (`candidate`), unless a blocking function said otherwise.
                user.email = address
                user.emailLinkSignIn = true
                try checkUnique(user, in: db, replacing: true)
            })
            return (user, session, false)
        }
        var generator = makeGenerator()
        var user = AuthUser(localId: AuthUser.generateLocalId(using: &generator), email: address, emailVerified: true,
            createdAt: now, lastLoginAt: now, lastRefreshAt: now)
        user.emailLinkSignIn = true
        let (created, saved) = try await createRunningBlocking(user, provider: "password", signInMethod: "emailLink",
            within: useCode)
        return (saved, AuthSession(idToken: created.idToken ?? "", refreshToken: created.refreshToken ?? ""), true)
    }

    /// Every code made and not yet used (expired ones for a day), oldest first.
    package func oobCodes() throws -> [AuthOobCode] {
        let now = clock.now
        return try read { db in try AuthOobCodeStorage.codes(db, project: project, now: now) }
    }

    /// Forgets every code: none of them works any more.
    package func deleteOobCodes() async throws {
        try await write { [project] transaction in try AuthOobCodeStorage.deleteAll(transaction.db, project: project) }
    }

    // MARK: Checks

    /// The stored code `code`, when it is one of `kinds` and still valid at `now`.
    private func usableCode(
        _ db: GRDB.Database, _ code: String?, kinds: Set<AuthOobCode.Kind>, now: Date
    ) throws -> AuthOobCode {
        guard let code, !code.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_OOB_CODE") }
        guard let stored = try AuthOobCodeStorage.code(db, project: project, code: code), kinds.contains(stored.kind) else {
            throw ServiceError(.invalidArgument, "INVALID_OOB_CODE")
        }
        guard now < stored.expiresAt else { throw ServiceError(.invalidArgument, "EXPIRED_OOB_CODE") }
        return stored
    }

    /// The user a reset, verification or change code was made for, as stored: it must still
    /// have the code's address (and be the same user).
    private func boundUser(_ db: GRDB.Database, of code: AuthOobCode) throws -> AuthUser {
        guard let user = try AuthUserStorage.user(db, project: project, email: code.email),
            code.localId == nil || code.localId == user.localId
        else { throw ServiceError(.invalidArgument, "INVALID_OOB_CODE") }
        guard !user.disabled else { throw ServiceError(.invalidArgument, "USER_DISABLED") }
        return user
    }

    /// A given, well-formed address, lower-cased.
    private static func canonicalAddress(_ email: String?) throws -> String {
        guard let email, !email.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_EMAIL") }
        guard AuthUserValidation.isValidEmail(email.lowercased()) else { throw ServiceError(.invalidArgument, "INVALID_EMAIL") }
        return try AuthUserValidation.canonicalEmail(email)
    }
}
