import Foundation
import CloudFunctions

extension AuthIDToken {
    /// Writes a fresh ID token for a user.
    ///
    /// - Parameters:
    ///   - user: the signed-in user.
    ///   - projectId: the project (`aud`, and the end of `iss`).
    ///   - signInProvider: `firebase.sign_in_provider`, e.g. `password`, `custom`, `anonymous`, `google.com`.
    ///   - now: the issue time (`iat`; `exp` is one hour later).
    ///   - authTime: when the user signed in (`auth_time`); defaults to `now`.
    ///   - tenantId: `firebase.tenant`, for multi-tenant projects.
    public static func issue(
        for user: AuthUser,
        projectId: String,
        signInProvider: String,
        now: Date,
        authTime: Date? = nil,
        tenantId: String? = nil
    ) -> String {
        encode(
            claims: claims(
                for: user, projectId: projectId, signInProvider: signInProvider, now: now, authTime: authTime,
                tenantId: tenantId
            )
        )
    }

    /// The payload of a fresh ID token: the user's custom claims overlaid with the standard ones (which win).
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
