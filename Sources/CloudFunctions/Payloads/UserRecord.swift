import CloudEvents
import Foundation

/// A Firebase Authentication user: what `Auth.user().onCreate` / `onDelete` handlers receive.
///
/// Decoding is lenient about the producers' spellings: camelCase or snake_case fields,
/// `photoURL`/`photoUrl`, and the three metadata spellings (`createdAt`, `creationTime`,
/// `createTime`). Falsy defaults the wire drops are filled in, as the SDK's constructor does.
public struct UserRecord: Sendable, Hashable, Codable {
    /// The user's id.
    public var uid: String
    /// The primary email, if any.
    public var email: String?
    /// Whether the email is verified.
    public var emailVerified: Bool
    /// The display name.
    public var displayName: String?
    /// The profile photo URL.
    public var photoURL: String?
    /// The phone number in E.164 form.
    public var phoneNumber: String?
    /// Whether the account is disabled.
    public var disabled: Bool
    /// Creation and last sign-in times.
    public var metadata: UserMetadata
    /// The linked identity providers.
    public var providerData: [UserProviderInfo]
    /// Custom claims set by an admin.
    public var customClaims: [String: JSONValue]
    /// The password hash, when the producer includes it.
    public var passwordHash: String?
    /// The password salt, when the producer includes it.
    public var passwordSalt: String?
    /// Tokens issued before this time are revoked.
    public var tokensValidAfterTime: Date?
    /// The tenant, for multi-tenant projects.
    public var tenantId: String?

    /// Creates a user record.
    public init(
        uid: String,
        email: String? = nil,
        emailVerified: Bool = false,
        displayName: String? = nil,
        photoURL: String? = nil,
        phoneNumber: String? = nil,
        disabled: Bool = false,
        metadata: UserMetadata = UserMetadata(),
        providerData: [UserProviderInfo] = [],
        customClaims: [String: JSONValue] = [:],
        passwordHash: String? = nil,
        passwordSalt: String? = nil,
        tokensValidAfterTime: Date? = nil,
        tenantId: String? = nil
    ) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.disabled = disabled
        self.metadata = metadata
        self.providerData = providerData
        self.customClaims = customClaims
        self.passwordHash = passwordHash
        self.passwordSalt = passwordSalt
        self.tokensValidAfterTime = tokensValidAfterTime
        self.tenantId = tenantId
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        guard let uid = try c.string("uid", "localId"), !uid.isEmpty else {
            throw DecodingError.keyNotFound(AnyCodingKey("uid"), DecodingError.Context(
                codingPath: c.codingPath, debugDescription: "a user record needs a non-empty uid"))
        }
        self.uid = uid
        email = try c.string("email")
        emailVerified = try c.bool("emailVerified", "email_verified")
        displayName = try c.string("displayName", "display_name")
        photoURL = try c.string("photoURL", "photoUrl", "photo_url", "photo_URL")
        phoneNumber = try c.string("phoneNumber", "phone_number")
        disabled = try c.bool("disabled")
        metadata = try c.decodeIfPresent(UserMetadata.self, forKey: AnyCodingKey("metadata")) ?? UserMetadata()
        let providerKey = LenientCoding.firstKey(c, AnyCodingKey("providerData"), AnyCodingKey("provider_data"))
        providerData = try providerKey.flatMap { try c.decodeIfPresent([UserProviderInfo].self, forKey: $0) } ?? []
        customClaims = [:]
        if let key = LenientCoding.firstKey(c, AnyCodingKey("customClaims"), AnyCodingKey("custom_claims")) {
            switch try c.decode(JSONValue.self, forKey: key) {
            case .object(let claims): customClaims = claims
            case .string(let text): customClaims = (try? JSONValue(parsing: text))?.objectValue ?? [:]
            default: break
            }
        }
        passwordHash = try c.string("passwordHash", "password_hash")
        passwordSalt = try c.string("passwordSalt", "password_salt")
        let validAfter = LenientCoding.firstKey(
            c,
            AnyCodingKey("tokensValidAfterTime"),
            AnyCodingKey("tokens_valid_after_time")
        )
        tokensValidAfterTime = try validAfter.flatMap { try LenientCoding.date(c, $0) }
        tenantId = try c.string("tenantId", "tenant_id")
    }

    enum CodingKeys: String, CodingKey {
        case uid, email, emailVerified, displayName, photoURL, phoneNumber, disabled, metadata, providerData
        case customClaims, passwordHash, passwordSalt, tokensValidAfterTime, tenantId
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uid, forKey: .uid)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encode(emailVerified, forKey: .emailVerified)
        try c.encodeIfPresent(displayName, forKey: .displayName)
        try c.encodeIfPresent(photoURL, forKey: .photoURL)
        try c.encodeIfPresent(phoneNumber, forKey: .phoneNumber)
        try c.encode(disabled, forKey: .disabled)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(providerData, forKey: .providerData)
        try c.encode(customClaims, forKey: .customClaims)
        try c.encodeIfPresent(passwordHash, forKey: .passwordHash)
        try c.encodeIfPresent(passwordSalt, forKey: .passwordSalt)
        try c.encodeIfPresent(tokensValidAfterTime.map(RFC3339Timestamp.string(from:)), forKey: .tokensValidAfterTime)
        try c.encodeIfPresent(tenantId, forKey: .tenantId)
    }
}
