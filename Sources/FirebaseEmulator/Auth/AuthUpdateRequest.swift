import CloudFunctions
import Foundation

/// The administrator body of `accounts:update` (`update_user`, `set_custom_user_claims`,
/// `revoke_refresh_tokens`). Absent fields are left unchanged.
public struct AuthUpdateRequest: Sendable, Hashable, Codable {
    /// The user to change.
    public var localId: String?
    /// A new email (lower-cased; resets `emailVerified` unless that is given too).
    public var email: String?
    /// A new clear password (stored as bcrypt; revokes earlier tokens).
    public var password: String?
    /// A new display name.
    public var displayName: String?
    /// A new photo URL.
    public var photoUrl: String?
    /// A new E.164 phone number.
    public var phoneNumber: String?
    /// Whether the email is verified.
    public var emailVerified: Bool?
    /// Disables (`true`) or enables (`false`) the account.
    public var disableUser: Bool?
    /// The custom claims as JSON text; `""` or `"{}"` clears them.
    public var customAttributes: String?
    /// Attributes to remove: `DISPLAY_NAME`, `PHOTO_URL`, `PASSWORD`, `EMAIL`.
    public var deleteAttribute: [String]?
    /// Providers to unlink: `phone` removes the phone number, `password` the email and password, others the
    /// federated provider.
    public var deleteProvider: [String]?
    /// Tokens issued before this time (epoch seconds) are revoked; text or a number on the wire.
    public var validSince: Int64?

    /// Creates a request.
    public init(
        localId: String?,
        email: String? = nil,
        password: String? = nil,
        displayName: String? = nil,
        photoUrl: String? = nil,
        phoneNumber: String? = nil,
        emailVerified: Bool? = nil,
        disableUser: Bool? = nil,
        customAttributes: String? = nil,
        deleteAttribute: [String]? = nil,
        deleteProvider: [String]? = nil,
        validSince: Int64? = nil
    ) {
        self.localId = localId
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.phoneNumber = phoneNumber
        self.emailVerified = emailVerified
        self.disableUser = disableUser
        self.customAttributes = customAttributes
        self.deleteAttribute = deleteAttribute
        self.deleteProvider = deleteProvider
        self.validSince = validSince
    }

    enum CodingKeys: String, CodingKey {
        case localId, email, password, displayName, photoUrl, phoneNumber, emailVerified, disableUser
        case customAttributes, deleteAttribute, deleteProvider, validSince
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        localId = try c.decodeIfPresent(String.self, forKey: .localId)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        password = try c.decodeIfPresent(String.self, forKey: .password)
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName)
        photoUrl = try c.decodeIfPresent(String.self, forKey: .photoUrl)
        phoneNumber = try c.decodeIfPresent(String.self, forKey: .phoneNumber)
        emailVerified = try c.decodeIfPresent(Bool.self, forKey: .emailVerified)
        disableUser = try c.decodeIfPresent(Bool.self, forKey: .disableUser)
        customAttributes = try c.decodeIfPresent(String.self, forKey: .customAttributes)
        deleteAttribute = try c.decodeIfPresent([String].self, forKey: .deleteAttribute)
        deleteProvider = try c.decodeIfPresent([String].self, forKey: .deleteProvider)
        switch try c.decodeIfPresent(JSONValue.self, forKey: .validSince) {
        case nil, .null?: validSince = nil
        case .string(let text)?: validSince = Int64(text)
        case .number(let number)? where number.isFinite && abs(number) < 9.2e18: validSince = Int64(number)
        default: validSince = nil
        }
    }
}
