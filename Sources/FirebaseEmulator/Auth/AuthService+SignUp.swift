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
    package func signUp(_ request: AuthSignUpRequest, privileged: Bool) throws -> AuthSignUpResponse {
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
        let created = user
        try write { transaction in
            try checkUnique(created, in: transaction.db)
            try AuthUserStorage.save(transaction.db, project: project, user: created)
            try emitUserEvent(FirebaseEventType.authUserCreated, created, in: &transaction)
        }
        var response = AuthSignUpResponse(
            localId: created.localId, email: created.email, displayName: created.displayName
        )
        if let provider {
            let session = issueSession(for: created, signInProvider: provider, now: now, using: &generator)
            response.idToken = session.idToken
            response.refreshToken = session.refreshToken
            response.expiresIn = session.expiresIn
        }
        return response
    }

    /// Throws when the user's uid, email or phone number is taken by another stored user.
    func checkUnique(_ user: AuthUser, in db: GRDB.Database, replacing: Bool = false) throws {
        if !replacing, try AuthUserStorage.user(db, project: project, uid: user.localId) != nil {
            throw ServiceError(.invalidArgument, "DUPLICATE_LOCAL_ID")
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
}
