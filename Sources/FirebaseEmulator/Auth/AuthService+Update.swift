import CloudFunctions
import Foundation

extension AuthService {
    /// Changes a user (administrator `accounts:update`), as the emulator applies the fields: email (checked and
    /// lower-cased, `emailVerified` reset), password (re-hashed; `validSince` moves to now), profile fields,
    /// `disableUser`, `customAttributes`, `deleteAttribute`, `deleteProvider`, and an explicit `validSince`.
    ///
    /// - Returns: the user as stored.
    /// - Throws: `MISSING_LOCAL_ID`, `USER_NOT_FOUND`, `INVALID_EMAIL`, `EMAIL_EXISTS`,
    ///   `WEAK_PASSWORD : Password should be at least 6 characters`, `INVALID_PHONE_NUMBER : Invalid format.`,
    ///   `PHONE_NUMBER_EXISTS`, `INVALID_CLAIMS`, `CLAIMS_TOO_LARGE`, `FORBIDDEN_CLAIM : <name>`,
    ///   `INVALID_DELETE_ATTRIBUTE : <name>`.
    @discardableResult
    public func update(_ request: AuthUpdateRequest) async throws -> AuthUser {
        guard let localId = request.localId, !localId.isEmpty else {
            throw ServiceError(.invalidArgument, "MISSING_LOCAL_ID")
        }
        let claims = try request.customAttributes.map { try AuthCustomClaims.parse($0, context: .update) }
        let deleted = Set(request.deleteAttribute ?? [])
        let known: Set<String> = ["USER_ATTRIBUTE_NAME_UNSPECIFIED", "DISPLAY_NAME", "PHOTO_URL", "PASSWORD", "EMAIL"]
        if let unknown = deleted.subtracting(known).sorted().first {
            throw ServiceError(.invalidArgument, "INVALID_DELETE_ATTRIBUTE : \(unknown)")
        }
        let canonicalEmail = try request.email.map { email in
            guard AuthUserValidation.isValidEmail(email.lowercased()) else {
                throw ServiceError(.invalidArgument, "INVALID_EMAIL")
            }
            return try AuthUserValidation.canonicalEmail(email)
        }
        let now = clock.now
        let newHash = try request.password.flatMap { password -> String? in
            guard !password.isEmpty else { return nil }
            try AuthUserValidation.validatePassword(password)
            return hasher.hash(password)
        }
        if let phone = request.phoneNumber, !phone.isEmpty { try AuthUserValidation.validatePhoneNumber(phone) }
        return try await write { [self] transaction in
            guard var user = try AuthUserStorage.user(transaction.db, project: project, uid: localId) else {
                throw ServiceError(.invalidArgument, "USER_NOT_FOUND")
            }
            var revoke = request.validSince != nil
            if let canonicalEmail, canonicalEmail != user.email {
                user.email = canonicalEmail
                user.emailVerified = false
                revoke = true
            }
            if let newHash {
                user.passwordHash = newHash
                user.passwordUpdatedAt = now
                revoke = true
            }
            if revoke { user.validSince = AuthTimestamp.date(seconds: AuthTimestamp.seconds(now)) }
            if let displayName = request.displayName { user.displayName = displayName }
            if let photoUrl = request.photoUrl { user.photoURL = photoUrl }
            if let phone = request.phoneNumber, !phone.isEmpty { user.phoneNumber = phone }
            if let emailVerified = request.emailVerified { user.emailVerified = emailVerified }
            if let disableUser = request.disableUser { user.disabled = disableUser }
            if let claims { user.customClaims = claims }
            if let seconds = request.validSince, seconds.magnitude <= AuthTimestamp.maximumMilliseconds.magnitude / 1000 {
                user.validSince = AuthTimestamp.date(seconds: seconds)
            }
            Self.apply(deleteAttributes: deleted, deleteProviders: request.deleteProvider ?? [], to: &user)
            try checkUnique(user, in: transaction.db, replacing: true)
            try AuthUserStorage.save(transaction.db, project: project, user: user)
            return user
        }
    }

    /// Changes the signed-in user, as a client's `accounts:update` with its ID token may: email,
    /// password, display name, photo URL, `deleteAttribute` and `deleteProvider`. The fields only
    /// an administrator sets are refused (`customAttributes`, `disableUser`) or ignored
    /// (`emailVerified`, `phoneNumber`; a `validSince` counts only as being there). A change that
    /// revokes the user's earlier tokens (a password, a new email, `validSince`) answers fresh
    /// ones, so that the client stays signed in: signed in with `password` after a password.
    ///
    /// - Returns: the user as stored, and the new session when earlier tokens were revoked.
    /// - Throws: what ``verifyIDToken(_:)`` and ``update(_:)`` throw; `INSUFFICIENT_PERMISSION` for custom
    ///   claims, `OPERATION_NOT_ALLOWED` for `disableUser`.
    package func clientUpdate(_ request: AuthUpdateRequest, idToken: String?) async throws -> (AuthUser, AuthSession?) {
        let (token, caller) = try verifiedIDToken(idToken)
        guard request.customAttributes == nil else { throw ServiceError(.invalidArgument, "INSUFFICIENT_PERMISSION") }
        guard request.disableUser == nil else { throw ServiceError(.invalidArgument, "OPERATION_NOT_ALLOWED") }
        let provider = token.signInProvider ?? "custom"
        var change = request
        change.localId = caller.localId
        change.emailVerified = nil
        change.phoneNumber = nil
        let now = clock.now
        change.validSince = request.validSince == nil ? nil : AuthTimestamp.seconds(now)
        let setsPassword = !(request.password ?? "").isEmpty
        let user = try await update(change)
        guard setsPassword || request.validSince != nil || user.email != caller.email else { return (user, nil) }
        var generator = makeGenerator()
        // Issued no earlier than the revocation the update made (it read the clock itself).
        let issued = max(now, user.validSince)
        let session = issueSession(for: user, signInProvider: setsPassword ? "password" : provider, now: issued,
            authTime: user.lastLoginAt, using: &generator)
        return (user, session)
    }

    /// Removes what `deleteAttribute` and `deleteProvider` name.
    static func apply(deleteAttributes: Set<String>, deleteProviders: [String], to user: inout AuthUser) {
        if deleteAttributes.contains("DISPLAY_NAME") { user.displayName = nil }
        if deleteAttributes.contains("PHOTO_URL") { user.photoURL = nil }
        if deleteAttributes.contains("PASSWORD") { user.passwordHash = nil }
        if deleteAttributes.contains("EMAIL") {
            user.email = nil
            user.emailVerified = false
        }
        for provider in deleteProviders {
            switch provider {
            case "phone":
                user.phoneNumber = nil
            case "password":
                user.email = nil
                user.emailVerified = false
                user.passwordHash = nil
            default:
                user.providerData.removeAll { $0.providerId == provider }
            }
        }
    }
}
