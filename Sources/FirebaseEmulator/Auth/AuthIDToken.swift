import Foundation
import CloudFunctions

/// An Auth emulator ID token: an unsigned JWT (`{"alg":"none","typ":"JWT"}`, empty signature).
///
/// ``issue(for:projectId:signInProvider:now:authTime:tenantId:)`` writes one;
/// ``init(parsing:projectId:now:checksExpiry:)`` reads one back, accepting signed tokens too (their signature is
/// ignored, as the emulator does).
public struct AuthIDToken: Sendable, Hashable {
    /// How long an ID token lives, in seconds.
    public static let lifetime: Int64 = 3600
    /// The header of emulator tokens, in its exact text form.
    public static let unsignedHeader = #"{"alg":"none","typ":"JWT"}"#
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
    public static func encode(claims: [String: JSONValue]) -> String {
        let header = AuthBase64.urlEncoded(Data(unsignedHeader.utf8))
        let payload = AuthBase64.urlEncoded(JSONValue.object(claims).serializedData(sortedKeys: true))
        return "\(header).\(payload)."
    }
}
