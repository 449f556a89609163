import CloudFunctions
import Foundation

/// An Auth emulator ID token: an unsigned JWT (`{"alg":"none","typ":"JWT"}`, empty signature).
///
/// ``encode(claims:)`` of ``claims(for:projectId:signInProvider:now:authTime:tenantId:)`` writes one;
/// ``init(parsing:projectId:now:checksExpiry:)`` reads one back, accepting signed tokens too (their signature is
/// ignored, as the emulator does).
public struct AuthIDToken: Sendable, Hashable {
    /// How long an ID token lives, in seconds.
    public static let lifetime: Int64 = 3600
    /// The claims the token itself defines; the rest of the payload are custom claims.
    public static let standardClaimNames: Set<String> = [
        "iss", "aud", "auth_time", "user_id", "sub", "iat", "exp", "email", "email_verified", "phone_number",
        "name", "picture", "provider_id", "firebase",
    ]

    /// The whole payload.
    public var claims: [String: JSONValue]
    /// The user id (`sub`).
    public var uid: String
    /// The project the token is for (`aud`).
    public var audience: String
    /// When the token was issued (`iat`, whole seconds).
    public var issuedAt: Date
    /// When the token expires (`exp`, whole seconds).
    public var expiresAt: Date
    /// Whether the token carried a signature or a non-`none` algorithm (the emulator accepts it with a warning).
    public var isSigned: Bool

    /// The `iss` expected for a project.
    public static func issuer(projectId: String) -> String { "https://securetoken.google.com/\(projectId)" }

    /// `firebase.sign_in_provider`, when present.
    public var signInProvider: String? { claims["firebase"]?["sign_in_provider"]?.stringValue }

    /// The `email` claim, when present.
    public var email: String? { claims["email"]?.stringValue }

    /// The custom claims: the payload members that are not standard claims.
    public var customClaims: [String: JSONValue] {
        claims.filter { !Self.standardClaimNames.contains($0.key) }
    }

    /// Encodes a payload as an unsigned JWT (keys sorted, so equal claims give equal tokens).
    public static func encode(claims: [String: JSONValue]) -> String { JSONWebToken.unsigned(claims) }
}

extension AuthIDToken {
    /// Decodes and checks an ID token.
    ///
    /// - Parameters:
    ///   - token: the JWT text (three dot-separated base64url segments; the signature is not checked).
    ///   - projectId: when given, `aud` must equal it and `iss` must be its securetoken issuer.
    ///   - now: the time to check `exp` against.
    ///   - checksExpiry: `false` skips the `exp` check, as the official emulator does.
    /// - Throws: `INVALID_ID_TOKEN` when malformed, for another project, or without a usable `sub`;
    ///   `TOKEN_EXPIRED` when `now` is at or past `exp`.
    public init(parsing token: String, projectId: String?, now: Date, checksExpiry: Bool = true) throws {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
            let headerData = AuthBase64.decode(String(segments[0])),
            let header = (try? JSONValue(parsing: headerData))?.objectValue,
            let payloadData = AuthBase64.decode(String(segments[1])),
            let claims = (try? JSONValue(parsing: payloadData))?.objectValue
        else { throw Self.invalid }
        guard let uid = claims["sub"]?.stringValue, AuthUserValidation.isValidLocalId(uid),
            let audience = claims["aud"]?.stringValue,
            let issued = Self.seconds(claims["iat"]), let expires = Self.seconds(claims["exp"])
        else { throw Self.invalid }
        if let projectId {
            guard audience == projectId, claims["iss"]?.stringValue == Self.issuer(projectId: projectId) else {
                throw Self.invalid
            }
        }
        if checksExpiry, AuthTimestamp.seconds(now) >= expires {
            throw ServiceError(.invalidArgument, "TOKEN_EXPIRED")
        }
        self.claims = claims
        self.uid = uid
        self.audience = audience
        self.issuedAt = AuthTimestamp.date(seconds: issued)
        self.expiresAt = AuthTimestamp.date(seconds: expires)
        self.isSigned = header["alg"]?.stringValue != "none" || !segments[2].isEmpty
    }

    /// Checks the token against the stored user, in the emulator's order.
    ///
    /// - Throws: `USER_NOT_FOUND` when `user` is `nil`, `TOKEN_EXPIRED` when issued before the user's
    ///   `validSince`, `USER_DISABLED` when the account is disabled.
    public func validate(for user: AuthUser?) throws {
        guard let user else { throw ServiceError(.invalidArgument, "USER_NOT_FOUND") }
        guard AuthTimestamp.seconds(issuedAt) >= AuthTimestamp.seconds(user.validSince) else {
            throw ServiceError(.invalidArgument, "TOKEN_EXPIRED")
        }
        guard !user.disabled else { throw ServiceError(.invalidArgument, "USER_DISABLED") }
    }

    private static var invalid: ServiceError { ServiceError(.invalidArgument, "INVALID_ID_TOKEN") }

    private static func seconds(_ value: JSONValue?) -> Int64? {
        guard let number = value?.numberValue, number.isFinite,
            abs(number) <= Double(AuthTimestamp.maximumMilliseconds / 1000)
        else { return nil }
        return Int64(number.rounded(.down))
    }
}

extension AuthIDToken {
    /// The payload of a fresh ID token: the user's custom claims overlaid with the standard ones (which win);
    /// ``encode(claims:)`` makes the token.
    ///
    /// - Parameters:
    ///   - user: the signed-in user.
    ///   - projectId: the project (`aud`, and the end of `iss`).
    ///   - signInProvider: `firebase.sign_in_provider`, e.g. `password`, `custom`, `anonymous`, `google.com`.
    ///   - now: the issue time (`iat`; `exp` is one hour later).
    ///   - authTime: when the user signed in (`auth_time`); defaults to `now`.
    ///   - tenantId: `firebase.tenant`, for multi-tenant projects.
    public static func claims(
        for user: AuthUser,
        projectId: String,
        signInProvider: String,
        now: Date,
        authTime: Date? = nil,
        tenantId: String? = nil
    ) -> [String: JSONValue] {
        let issued = AuthTimestamp.seconds(now)
        var claims = user.customClaims
        claims["iss"] = .string(issuer(projectId: projectId))
        claims["aud"] = .string(projectId)
        claims["auth_time"] = .number(Double(AuthTimestamp.seconds(authTime ?? now)))
        claims["user_id"] = .string(user.localId)
        claims["sub"] = .string(user.localId)
        claims["iat"] = .number(Double(issued))
        claims["exp"] = .number(Double(issued + lifetime))
        if let email = user.email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(user.emailVerified)
        }
        claims["phone_number"] = user.phoneNumber.map(JSONValue.string)
        claims["name"] = user.displayName.map(JSONValue.string)
        claims["picture"] = user.photoURL.map(JSONValue.string)
        if signInProvider == "anonymous" { claims["provider_id"] = "anonymous" }
        var firebase: [String: JSONValue] = [
            "identities": .object(identities(of: user)), "sign_in_provider": .string(signInProvider),
        ]
        firebase["tenant"] = tenantId.map(JSONValue.string)
        claims["firebase"] = .object(firebase)
        return claims
    }

    /// `firebase.identities`: `email` and `phone` lists plus one list of raw ids per federated provider.
    static func identities(of user: AuthUser) -> [String: JSONValue] {
        var identities: [String: [JSONValue]] = [:]
        if let email = user.email { identities["email"] = [.string(email)] }
        if let phoneNumber = user.phoneNumber { identities["phone"] = [.string(phoneNumber)] }
        for provider in user.providerData where provider.providerId != "password" && provider.providerId != "phone" {
            identities[provider.providerId, default: []].append(.string(provider.rawId))
        }
        return identities.mapValues(JSONValue.array)
    }
}
