import Foundation

/// A user as the Identity Toolkit API writes it (`accounts:lookup`, `accounts:batchGet`): what the
/// emulator answers, and what the Admin HTTP client reads into a ``UserRecord``.
///
/// Times are as the service writes them: `createdAt` and `lastLoginAt` epoch milliseconds and
/// `validSince` epoch seconds, as strings; `lastRefreshAt` RFC 3339; `passwordUpdatedAt` epoch
/// milliseconds as a number. `customAttributes` holds the custom claims as a JSON string.
public struct IdentityToolkitUser: Sendable, Hashable, Codable {
    /// One linked identity provider (`providerUserInfo`).
    public struct Provider: Sendable, Hashable, Codable {
        public var providerId: String
        /// The user's id at the provider.
        public var rawId: String
        public var federatedId: String?
        public var email: String?
        public var displayName: String?
        public var photoUrl: String?
        public var phoneNumber: String?

        /// Creates a provider entry.
        public init(providerId: String, rawId: String) {
            self.providerId = providerId
            self.rawId = rawId
        }
    }

    public var localId: String
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    public var disabled: Bool?
    public var createdAt: String?
    public var lastLoginAt: String?
    public var lastRefreshAt: String?
    public var validSince: String?
    public var customAttributes: String?
    public var providerUserInfo: [Provider]?
    /// The password hash, base64.
    public var passwordHash: String?
    public var salt: String?
    public var passwordUpdatedAt: Double?
    /// Whether the user has signed in with an e-mail link.
    public var emailLinkSignin: Bool?
    public var tenantId: String?

    /// Creates a user with only its id.
    public init(localId: String) {
        self.localId = localId
    }
}

extension UserRecord {
    /// The user an Identity Toolkit answer describes.
    public init(_ user: IdentityToolkitUser) {
        func milliseconds(_ text: String?) -> Date? {
            text.flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) }
        }
        let claims = user.customAttributes.flatMap { try? JSONValue(parsing: Data($0.utf8)) }
        self.init(
            uid: user.localId,
            email: user.email,
            emailVerified: user.emailVerified ?? false,
            displayName: user.displayName,
            photoURL: user.photoUrl,
            phoneNumber: user.phoneNumber,
            disabled: user.disabled ?? false,
            metadata: UserMetadata(creationTime: milliseconds(user.createdAt), lastSignInTime: milliseconds(user.lastLoginAt)),
            providerData: (user.providerUserInfo ?? []).map { provider in
                UserProviderInfo(uid: provider.rawId, providerId: provider.providerId, email: provider.email,
                    displayName: provider.displayName, photoURL: provider.photoUrl, phoneNumber: provider.phoneNumber)
            },
            customClaims: claims?.objectValue ?? [:],
            passwordHash: user.passwordHash,
            passwordSalt: user.salt,
            tokensValidAfterTime: user.validSince.flatMap(Double.init).map { Date(timeIntervalSince1970: $0) },
            tenantId: user.tenantId
        )
    }
}
