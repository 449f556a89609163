import CloudEvents
import CloudFunctions
import Foundation
import GRDB

extension AuthService {
    /// Creates a user: client sign-up (`accounts:signUp` with an API key) or admin create
    /// (`projects/{p}/accounts`, or signUp with `Bearer owner`).
    ///
    /// A client sign-up with an email needs a password (and vice versa); one with neither makes an anonymous
    /// user. Client sign-ups are signed in (`lastLoginAt`, tokens); admin creates are not. Emits `user.created`.
    ///
    /// - Parameters:
    ///   - request: the body.
    ///   - privileged: whether the caller is an administrator.
    /// - Throws: `UNEXPECTED_PARAMETER : User ID`, `MISSING_EMAIL`, `MISSING_PASSWORD`, `INVALID_EMAIL`,
    ///   `WEAK_PASSWORD : Password should be at least 6 characters`, `INVALID_LOCAL_ID : …`,
    ///   `INVALID_PHONE_NUMBER : Invalid format.`, `DUPLICATE_LOCAL_ID`, `EMAIL_EXISTS`, `PHONE_NUMBER_EXISTS`.
    @discardableResult
    package func signUp(_ request: AuthSignUpRequest, privileged: Bool) async throws -> AuthSignUpResponse {
        let (user, provider) = try prepareSignUp(request, privileged: privileged)
        return try await commitSignUp(user, provider: provider, sessionClaims: [:])
    }

    /// A client's sign-up (or an admin create) as the REST route serves it: a client sign-up
    /// first runs the deployed `beforeUserCreated` and `beforeUserSignedIn` functions on the
    /// new user, applies what they change, and is refused with
    /// `BLOCKING_FUNCTION_ERROR_RESPONSE` when either refuses; nothing is saved then. An
    /// admin create runs none, as in production.
    ///
    /// - Throws: what ``signUp(_:privileged:)`` throws, and `BLOCKING_FUNCTION_ERROR_RESPONSE : ((…))`.
    package func clientSignUp(_ request: AuthSignUpRequest, privileged: Bool) async throws -> AuthSignUpResponse {
        if !privileged, let idToken = request.idToken { return try await link(request, idToken: idToken) }
        let (user, provider) = try prepareSignUp(request, privileged: privileged)
        guard let provider else { return try await commitSignUp(user, provider: nil, sessionClaims: [:]) }
        return try await createRunningBlocking(user, provider: provider).response
    }

    /// Creates `user` and signs it in as a client sign-up does: the deployed `beforeUserCreated`
    /// and `beforeUserSignedIn` run first on the new user, what they change is saved, and their
    /// session claims (over `claims`) go into its ID tokens; when either refuses, nothing is saved.
    ///
    /// - Parameters:
    ///   - signInMethod: what the functions are told the method is (`provider` when `nil`).
    ///   - within: runs in the transaction that creates the user; throwing creates nothing.
    /// - Returns: the answer and the user as created.
    /// - Throws: `DUPLICATE_LOCAL_ID`, `EMAIL_EXISTS`, `PHONE_NUMBER_EXISTS` (before any function runs),
    ///   `BLOCKING_FUNCTION_ERROR_RESPONSE : ((…))`, `USER_DISABLED` for a user a function
    ///   disabled, and what `within` throws.
    func createRunningBlocking(
        _ user: AuthUser,
        provider: String,
        signInMethod: String? = nil,
        claims: [String: JSONValue] = [:],
        within: @escaping @Sendable (GRDB.Database) throws -> Void = { _ in }
    ) async throws -> (response: AuthSignUpResponse, user: AuthUser) {
        // A taken email fails before any function runs.
        try read { db in try checkUnique(user, in: db) }
        let outcome = try await runBlockingFunctions([.beforeCreate, .beforeSignIn], on: user,
            signInMethod: signInMethod ?? provider)
        let response = try await commitSignUp(outcome.user, provider: provider,
            sessionClaims: claims.merging(outcome.sessionClaims) { $1 }, within: within)
        if outcome.user.disabled { throw ServiceError(.invalidArgument, "USER_DISABLED") }
        return (response, outcome.user)
    }

    /// Checks a sign-up and builds the user it would create, with the sign-in provider of a
    /// client sign-up (`nil` for an admin create).
    private func prepareSignUp(_ request: AuthSignUpRequest, privileged: Bool) throws -> (AuthUser, String?) {
        let now = clock.now
        var generator = makeGenerator()
        var user = AuthUser(localId: "", createdAt: now)
        let provider: String?
        if privileged {
            provider = nil
            if let localId = request.localId, !localId.isEmpty {
                try AuthUserValidation.validateLocalId(localId)
                user.localId = localId
            }
            user.photoURL = request.photoUrl
            user.emailVerified = request.emailVerified ?? false
            user.disabled = request.disabled ?? false
            if let phoneNumber = request.phoneNumber, !phoneNumber.isEmpty {
                try AuthUserValidation.validatePhoneNumber(phoneNumber)
                user.phoneNumber = phoneNumber
            }
        } else {
            guard request.localId == nil else { throw ServiceError(.invalidArgument, "UNEXPECTED_PARAMETER : User ID") }
            if request.email != nil || request.password != nil {
                guard !(request.email ?? "").isEmpty else { throw ServiceError(.invalidArgument, "MISSING_EMAIL") }
                guard !(request.password ?? "").isEmpty else { throw ServiceError(.invalidArgument,
                    "MISSING_PASSWORD") }
                provider = "password"
            } else {
                provider = "anonymous"
            }
            user.lastLoginAt = now
            user.lastRefreshAt = now
        }
        user.displayName = request.displayName
        if let email = request.email, !email.isEmpty || provider != nil {
            guard AuthUserValidation.isValidEmail(email.lowercased()) else {
                throw ServiceError(.invalidArgument, "INVALID_EMAIL")
            }
            user.email = try AuthUserValidation.canonicalEmail(email)
        }
        if let password = request.password, !password.isEmpty {
            try AuthUserValidation.validatePassword(password)
            user.passwordHash = hasher.hash(password)
            user.passwordUpdatedAt = now
            user.validSince = AuthTimestamp.date(seconds: AuthTimestamp.seconds(now))
        }
        if user.localId.isEmpty { user.localId = AuthUser.generateLocalId(using: &generator) }
        return (user, provider)
    }

    /// Links an email and password to the user `idToken` signs in (a client's `accounts:signUp`
    /// with an ID token, as `linkWithCredential` sends it): that user gets them (its email
    /// unverified), its earlier tokens are revoked, and it is signed in again with `password`.
    /// No user is created: no `user.created` event, no blocking function.
    ///
    /// - Throws: `MISSING_EMAIL`, `MISSING_PASSWORD`, `INVALID_EMAIL`, `WEAK_PASSWORD : …`, what
    ///   ``verifyIDToken(_:)`` throws, `EMAIL_EXISTS` for another user's email.
    private func link(_ request: AuthSignUpRequest, idToken: String) async throws -> AuthSignUpResponse {
        guard request.localId == nil else { throw ServiceError(.invalidArgument, "UNEXPECTED_PARAMETER : User ID") }
        guard let email = request.email, !email.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_EMAIL") }
        guard let password = request.password, !password.isEmpty else {
            throw ServiceError(.invalidArgument, "MISSING_PASSWORD")
        }
        guard AuthUserValidation.isValidEmail(email.lowercased()) else { throw ServiceError(.invalidArgument, "INVALID_EMAIL") }
        let canonical = try AuthUserValidation.canonicalEmail(email)
        try AuthUserValidation.validatePassword(password)
        let caller = try verifyIDToken(idToken)
        let hash = hasher.hash(password)
        let now = clock.now
        let user = try await write { [self] transaction in
            guard var user = try AuthUserStorage.user(transaction.db, project: project, uid: caller.localId) else {
                throw ServiceError(.invalidArgument, "USER_NOT_FOUND")
            }
            user.email = canonical
            user.emailVerified = false
            user.passwordHash = hash
            user.passwordUpdatedAt = now
            user.validSince = AuthTimestamp.date(seconds: AuthTimestamp.seconds(now))
            if let displayName = request.displayName { user.displayName = displayName }
            user.lastLoginAt = now
            user.lastRefreshAt = now
            try checkUnique(user, in: transaction.db, replacing: true)
            try AuthUserStorage.save(transaction.db, project: project, user: user)
            return user
        }
        var generator = makeGenerator()
        let session = issueSession(for: user, signInProvider: "password", now: now, using: &generator)
        var response = AuthSignUpResponse(localId: user.localId, email: user.email, displayName: user.displayName)
        response.idToken = session.idToken
        response.refreshToken = session.refreshToken
        response.expiresIn = session.expiresIn
        return response
    }

    /// Saves a prepared user (emitting `user.created`) and, for a client sign-up, signs it in;
    /// `within` runs first in the same transaction.
    private func commitSignUp(
        _ created: AuthUser,
        provider: String?,
        sessionClaims: [String: JSONValue],
        within: @escaping @Sendable (GRDB.Database) throws -> Void = { _ in }
    ) async throws -> AuthSignUpResponse {
        try await write { [self] transaction in
            try within(transaction.db)
            try checkUnique(created, in: transaction.db)

            try AuthUserStorage.save(transaction.db, project: project, user: created)
            try emitUserEvent(FirebaseEventType.authUserCreated, created, in: &transaction)
        }
        var response = AuthSignUpResponse(
            localId: created.localId, email: created.email, displayName: created.displayName
        )
        if let provider {
            var generator = makeGenerator()
            let session = issueSession(for: created, signInProvider: provider, now: clock.now,
                sessionClaims: sessionClaims, using: &generator)
            response.idToken = session.idToken
            response.refreshToken = session.refreshToken
            response.expiresIn = session.expiresIn
        }
        return response
    }

    /// Throws when the user's uid, email, phone number or a federated account of theirs is taken
    /// by another stored user.
    func checkUnique(_ user: AuthUser, in db: GRDB.Database, replacing: Bool = false) throws {
        if !replacing, try AuthUserStorage.user(db, project: project, uid: user.localId) != nil {
            throw ServiceError(.invalidArgument, "DUPLICATE_LOCAL_ID")
        }
        // A federated account belongs to one user. Checked before the email, which the same
        // account's other user usually has too: two first sign-ins with it then meet here.
        for provider in user.providerData where !["password", "phone"].contains(provider.providerId) {
            if let other = try AuthUserStorage.user(db, project: project, providerId: provider.providerId,
                rawId: provider.rawId), other.localId != user.localId
            {
                throw ServiceError(.invalidArgument, Self.federatedIdTaken)
            }
        }
        if let email = user.email, let other = try AuthUserStorage.user(db, project: project, email: email),
            other.localId != user.localId
        {
            throw ServiceError(.invalidArgument, "EMAIL_EXISTS")
        }
        if let phone = user.phoneNumber, let other = try AuthUserStorage.user(db, project: project, phoneNumber: phone),
            other.localId != user.localId
        {
            throw ServiceError(.invalidArgument, "PHONE_NUMBER_EXISTS")
        }
    }

    /// The error of a federated account that belongs to another user.
    static let federatedIdTaken = "FEDERATED_USER_ID_ALREADY_LINKED"
}
