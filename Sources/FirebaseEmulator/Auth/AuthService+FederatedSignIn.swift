import CloudFunctions
import Foundation

/// Sign-ins that create the user the first time: with a custom token
/// (`accounts:signInWithCustomToken`) and with an identity provider's token
/// (`accounts:signInWithIdp`). A new user runs the deployed `beforeUserCreated` and
/// `beforeUserSignedIn` functions, a known one `beforeUserSignedIn`, as a client sign-up does.
extension AuthService {
    /// The audience of a custom token, as the Admin SDKs write it.
    static let customTokenAudience =
        "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    /// Signs in with a custom token made by an Admin SDK (`createCustomToken`): the user with
    /// the token's `uid`, created on first use. The token's signature is not checked, as in
    /// Firebase's emulator (Admin SDKs pointed at an emulator sign nothing); its audience,
    /// expiry, `uid` and developer `claims` are. The claims go into this ID token.
    ///
    /// - Throws: `MISSING_CUSTOM_TOKEN`, `INVALID_CUSTOM_TOKEN : …`, `USER_DISABLED`, and
    ///   `BLOCKING_FUNCTION_ERROR_RESPONSE : ((…))`.
    package func clientSignInWithCustomToken(_ token: String?) async throws -> AuthCustomTokenSignInResponse {
        guard let token, !token.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_CUSTOM_TOKEN") }
        let (uid, developerClaims) = try Self.parseCustomToken(token, now: clock.now)
        let signIn = try await signInOrCreate(
            existing: try read { db in try AuthUserStorage.user(db, project: project, uid: uid) },
            provider: "custom", developerClaims: developerClaims
        ) { now in
            AuthUser(localId: uid, createdAt: now, lastLoginAt: now, lastRefreshAt: now)
        }
        return AuthCustomTokenSignInResponse(idToken: signIn.session.idToken, refreshToken: signIn.session.refreshToken,
            expiresIn: signIn.session.expiresIn, isNewUser: signIn.isNewUser)
    }

    /// Signs in with an identity provider's token, as the client SDKs send it after a Google,
    /// Apple, Facebook… sign-in: `postBody` is a form with `providerId` and `id_token` (a JWT,
    /// unsigned here as in Firebase's emulator, or its claims as JSON), whose `sub` is the
    /// user's id at the provider and whose `email`, `email_verified`, `name` and `picture`
    /// fill a new user's profile. A provider id seen before signs that user in; an email
    /// another account already has asks the client to link instead (`needConfirmation`).
    ///
    /// - Throws: `MISSING_REQUEST_URI`, `INVALID_IDP_RESPONSE : …`, `USER_DISABLED`,
    ///   `BLOCKING_FUNCTION_ERROR_RESPONSE : ((…))`.
    package func clientSignInWithIdp(
        postBody: String?,
        requestUri: String?,
        returnIdpCredential: Bool
    ) async throws -> AuthIdpSignInResponse {
        guard let requestUri, !requestUri.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_REQUEST_URI") }
        let form = Self.formFields(postBody ?? "")
        guard let providerId = form["providerId"], Self.isProviderId(providerId) else {
            throw ServiceError(.invalidArgument, "INVALID_IDP_RESPONSE : the postBody names no valid providerId")
        }
        guard let idToken = form["id_token"], let profile = Self.idTokenClaims(idToken) else {
            throw ServiceError(.invalidArgument,
                "INVALID_IDP_RESPONSE : the postBody has no id_token (a JWT or a JSON object of claims)")
        }
        guard let rawId = profile["sub"]?.stringValue, !rawId.isEmpty else {
            throw ServiceError(.invalidArgument, "INVALID_IDP_RESPONSE : the id_token has no sub")
        }
        var email: String?
        if let claimed = profile["email"]?.stringValue, !claimed.isEmpty {
            guard AuthUserValidation.isValidEmail(claimed.lowercased()) else {
                throw ServiceError(.invalidArgument, "INVALID_IDP_RESPONSE : the id_token's email is not valid")
            }
            email = try AuthUserValidation.canonicalEmail(claimed)
        }
        let emailVerified = profile["email_verified"]?.boolValue ?? (profile["email_verified"]?.stringValue == "true")
        let provider = AuthProviderInfo(providerId: providerId, rawId: rawId, email: email,
            displayName: profile["name"]?.stringValue, photoURL: profile["picture"]?.stringValue, federatedId: rawId)
        var response = AuthIdpSignInResponse(federatedId: rawId, providerId: providerId, email: email,
            emailVerified: emailVerified, displayName: provider.displayName, photoUrl: provider.photoURL,
            rawUserInfo: JSONValue.object(profile).serialized(),
            oauthIdToken: returnIdpCredential ? idToken : nil)
        let (existing, emailTaken) = try read { db in
            let existing = try AuthUserStorage.user(db, project: project, providerId: providerId, rawId: rawId)
            let taken = try email.map { try AuthUserStorage.user(db, project: project, email: $0) } ?? nil
            return (existing, taken)
        }
        if existing == nil, let emailTaken {
            // One account per email: the client must sign in to that account and link this provider.
            response.needConfirmation = true
            response.localId = emailTaken.localId
            return response
        }
        func make(_ now: Date) -> AuthUser {
            AuthUser(localId: "", email: email, emailVerified: emailVerified, displayName: provider.displayName,
                photoURL: provider.photoURL, createdAt: now, lastLoginAt: now, lastRefreshAt: now,
                providerData: [provider])
        }
        let signIn: (user: AuthUser, session: AuthSession, isNewUser: Bool)
        do {
            signIn = try await signInOrCreate(existing: existing, provider: providerId, developerClaims: [:], make: make)
        } catch let error as ServiceError where existing == nil && error.message == Self.federatedIdTaken {
            // Another first sign-in with this account created its user meanwhile: sign in to that one.
            let created = try read { db in
                try AuthUserStorage.user(db, project: project, providerId: providerId, rawId: rawId)
            }
            guard let created else { throw error }
            signIn = try await signInOrCreate(existing: created, provider: providerId, developerClaims: [:], make: make)
        }
        response.localId = signIn.user.localId
        response.displayName = signIn.user.displayName
        response.photoUrl = signIn.user.photoURL
        response.emailVerified = signIn.user.emailVerified
        response.idToken = signIn.session.idToken
        response.refreshToken = signIn.session.refreshToken
        response.expiresIn = signIn.session.expiresIn
        response.isNewUser = signIn.isNewUser
        return response
    }

    /// Signs in `existing`, or creates the user `make` builds, running the blocking functions
    /// a sign-in or a sign-up runs.
    private func signInOrCreate(
        existing: AuthUser?,
        provider: String,
        developerClaims: [String: JSONValue],
        make: (Date) -> AuthUser
    ) async throws -> (user: AuthUser, session: AuthSession, isNewUser: Bool) {
        if let existing {
            guard !existing.disabled else { throw ServiceError(.invalidArgument, "USER_DISABLED") }
            let (user, session) = try await signInRunningBlocking(existing, provider: provider, claims: developerClaims)
            return (user, session, false)
        }
        var user = make(clock.now)
        if user.localId.isEmpty {
            var generator = makeGenerator()
            user.localId = AuthUser.generateLocalId(using: &generator)
        }
        let (created, saved) = try await createRunningBlocking(user, provider: provider, claims: developerClaims)
        let session = AuthSession(idToken: created.idToken ?? "", refreshToken: created.refreshToken ?? "")
        return (saved, session, true)
    }

    /// The `uid` and developer claims of a custom token: a JWT (signature not checked) or, as
    /// Firebase's emulator also takes, its claims as a JSON object.
    static func parseCustomToken(_ token: String, now: Date) throws -> (uid: String, claims: [String: JSONValue]) {
        func invalid(_ reason: String) -> ServiceError { ServiceError(.invalidArgument, "INVALID_CUSTOM_TOKEN : \(reason)") }
        let payload: [String: JSONValue]
        if token.hasPrefix("{") {
            guard let claims = (try? JSONValue(parsing: Data(token.utf8)))?.objectValue else {
                throw invalid("the token is not a JWT or a JSON object")
            }
            payload = claims
        } else {
            do {
                payload = try JSONWebToken(token).claims
            } catch {
                throw invalid(error.reason)
            }
            guard payload["aud"]?.stringValue == customTokenAudience else {
                throw invalid("the token's audience is not \(customTokenAudience)")
            }
        }
        if let expiry = payload["exp"]?.numberValue, expiry < now.timeIntervalSince1970 {
            throw invalid("the token has expired")
        }
        guard let uid = payload["uid"]?.stringValue, AuthUserValidation.isValidLocalId(uid) else {
            throw invalid("the token's uid must be a string of 1 to 128 characters")
        }
        if payload["tenant_id"] != nil { throw invalid("tenants are not supported by this emulator") }
        guard let claims = payload["claims"] else { return (uid, [:]) }
        guard let object = claims.objectValue else { throw invalid("the token's claims are not an object") }
        if let reserved = AuthCustomClaims.reservedNames.first(where: { object[$0] != nil }) {
            throw invalid("the claim '\(reserved)' is reserved")
        }
        return (uid, object)
    }

    /// The claims of an IdP token: an unsigned (or unchecked) JWT, or a JSON object.
    static func idTokenClaims(_ token: String) -> [String: JSONValue]? {
        if token.hasPrefix("{") { return (try? JSONValue(parsing: Data(token.utf8)))?.objectValue }
        return try? JSONWebToken(token).claims
    }

    /// `google.com`, `apple.com`, `oidc.my-provider`…: lower-case letters, digits, `.` and `-`.
    static func isProviderId(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64 && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-"
        } && text != "password" && text != "phone" && text != "anonymous" && text != "custom"
    }

    /// The fields of a form-encoded body (`+` as space, percent escapes decoded).
    package static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            guard let name = parts.first else { continue }
            fields[decode(name)] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
