/// One identity provider linked to a user (password, google.com, facebook.com, ...).
public struct UserProviderInfo: Sendable, Hashable, Codable {
    /// The user's id at the provider.
    public var uid: String
    /// The provider, e.g. `password` or `facebook.com`.
    public var providerId: String
    /// The email at the provider.
    public var email: String?
    /// The display name at the provider.
    public var displayName: String?
    /// The photo URL at the provider.
    public var photoURL: String?
    /// The phone number at the provider.
    public var phoneNumber: String?

    /// Creates provider info.
    public init(
        uid: String,
        providerId: String,
        email: String? = nil,
        displayName: String? = nil,
        photoURL: String? = nil,
        phoneNumber: String? = nil
    ) {
        self.uid = uid
        self.providerId = providerId
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        uid = try c.string("uid", "rawId") ?? ""
        providerId = try c.string("providerId", "provider_id") ?? ""
        email = try c.string("email")
        displayName = try c.string("displayName", "display_name")
        photoURL = try c.string("photoURL", "photoUrl", "photo_url", "photo_URL")
        phoneNumber = try c.string("phoneNumber", "phone_number")
    }

    enum CodingKeys: String, CodingKey { case uid, providerId, email, displayName, photoURL, phoneNumber }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uid, forKey: .uid)
        try c.encode(providerId, forKey: .providerId)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encodeIfPresent(displayName, forKey: .displayName)
        try c.encodeIfPresent(photoURL, forKey: .photoURL)
        try c.encodeIfPresent(phoneNumber, forKey: .phoneNumber)
    }
}
