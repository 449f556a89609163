import CloudEvents
import CloudFunctions
import Foundation

/// A user of the emulated Authentication service, as stored.
///
/// The password is only ever kept as a bcrypt string (``passwordHash``), never in clear.
public struct AuthUser: Sendable, Hashable, Codable {
    /// The user id (`localId` on the wire, `uid` in the SDKs); at most 128 characters.
    public var localId: String
    /// The canonical (lower-cased) email address.
    public var email: String?
    /// Whether the email address is verified.
    public var emailVerified: Bool
    /// The display name.
    public var displayName: String?
    /// The photo URL.
    public var photoURL: String?
    /// The E.164 phone number.
    public var phoneNumber: String?
    /// Whether the account is disabled.
    public var disabled: Bool
    /// When the account was created.
    public var createdAt: Date
    /// When the user last signed in, if ever.
    public var lastLoginAt: Date?
    /// When the user's tokens were last refreshed, if ever.
    public var lastRefreshAt: Date?
    /// Tokens issued before this instant (whole seconds) are revoked.
    public var validSince: Date
    /// The custom claims merged into the user's ID tokens.
    public var customClaims: [String: JSONValue]
    /// The linked federated providers (the `password` and `phone` entries are derived, see
    /// ``effectiveProviderData``).
    package var providerData: [AuthProviderInfo]
    /// The bcrypt hash of the password (`$2a$`, `$2b$` or `$2y$` form), if the user has one.
    public var passwordHash: String?
    /// When the password was last set.
    public var passwordUpdatedAt: Date?
    /// Whether the user has signed in with an e-mail link (`nil`: never). Such a user has the
    /// `password` provider even without a password, as in the service.
    package var emailLinkSignIn: Bool?

    /// Creates a user; `validSince` defaults to `createdAt`.
    package init(
        localId: String,
        email: String? = nil,
        emailVerified: Bool = false,
        displayName: String? = nil,
        photoURL: String? = nil,
        phoneNumber: String? = nil,
        disabled: Bool = false,
        createdAt: Date,
        lastLoginAt: Date? = nil,
        lastRefreshAt: Date? = nil,
        validSince: Date? = nil,
        customClaims: [String: JSONValue] = [:],
        providerData: [AuthProviderInfo] = [],
        passwordHash: String? = nil,
        passwordUpdatedAt: Date? = nil
    ) {
        self.localId = localId
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.disabled = disabled
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
        self.lastRefreshAt = lastRefreshAt
        self.validSince = validSince ?? createdAt
        self.customClaims = customClaims
        self.providerData = providerData
        self.passwordHash = passwordHash
        self.passwordUpdatedAt = passwordUpdatedAt
    }

    /// The SDK name of ``localId``.
    public var uid: String { localId }

    /// Whether the user has no email, phone, password or federated provider.
    public var isAnonymous: Bool {
        email == nil && phoneNumber == nil && passwordHash == nil && providerData.isEmpty
    }

    /// ``providerData`` plus the entries the emulator derives: `password` for a user with an email and a
    /// password, `phone` for a user with a phone number (unless already present).
    package var effectiveProviderData: [AuthProviderInfo] {
        var providers: [AuthProviderInfo] = []
        let listed = Set(providerData.map(\.providerId))
        if let email, passwordHash != nil || emailLinkSignIn == true, !listed.contains("password") {
            providers.append(
                AuthProviderInfo(
                    providerId: "password", rawId: email, email: email, displayName: displayName,
                    photoURL: photoURL, federatedId: email
                )
            )
        }
        if let phoneNumber, !listed.contains("phone") {
            providers.append(AuthProviderInfo(providerId: "phone", rawId: phoneNumber, phoneNumber: phoneNumber))
        }
        return providers + providerData
    }

    /// The alphabet of generated user ids.
    static let localIdAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// A fresh user id: 28 random alphanumeric characters, as the Auth emulator makes them.
    ///
    /// - Parameter generator: the randomness source (inject a seeded one in tests).
    public static func generateLocalId(using generator: inout some RandomNumberGenerator) -> String {
        var characters: [Character] = []
        characters.reserveCapacity(28)
        for _ in 0..<28 {
            characters.append(localIdAlphabet[Int.random(in: 0..<localIdAlphabet.count, using: &generator)])
        }
        return String(characters)
    }
}

extension AuthUser {
    /// The Identity Toolkit `UserInfo` wire form, as `accounts:lookup` and `accounts:batchGet` return it.
    ///
    /// Timestamps `createdAt`/`lastLoginAt` are epoch milliseconds as strings, `validSince` epoch seconds as a
    /// string, `customAttributes` the claims as a JSON string (absent when there are none), `passwordHash` the
    /// standard base64 of the bcrypt string (the salt is inside it, so no `salt` is written).
    ///
    /// - Parameter includePasswordHash: whether to write `passwordHash` (the emulator does; production redacts).
    public func userInfo(includePasswordHash: Bool = true) -> IdentityToolkitUser {
        var info = IdentityToolkitUser(localId: localId)
        info.email = email
        info.emailVerified = emailVerified
        info.displayName = displayName
        info.photoUrl = photoURL
        info.phoneNumber = phoneNumber
        info.disabled = disabled
        info.createdAt = String(AuthTimestamp.milliseconds(createdAt))
        info.lastLoginAt = lastLoginAt.map { String(AuthTimestamp.milliseconds($0)) }
        info.lastRefreshAt = lastRefreshAt.map(RFC3339Timestamp.millisecondString(from:))
        info.validSince = String(AuthTimestamp.seconds(validSince))
        if !customClaims.isEmpty { info.customAttributes = JSONValue.object(customClaims).serialized(sortedKeys: true) }
        info.providerUserInfo = effectiveProviderData.map(\.userInfo)
        if emailLinkSignIn == true { info.emailLinkSignin = true }

        if includePasswordHash, let passwordHash {
            info.passwordHash = Data(passwordHash.utf8).base64EncodedString()
            info.passwordUpdatedAt = passwordUpdatedAt.map { Double(AuthTimestamp.milliseconds($0)) }
        }
        return info
    }

    /// ``userInfo(includePasswordHash:)`` as JSON, as the routes answer it.
    public func userInfoJSON(includePasswordHash: Bool = true) -> JSONValue {
        // Strings, Bools and numbers only: encoding cannot fail.
        (try? JSONValue(encoding: userInfo(includePasswordHash: includePasswordHash))) ?? [:]
    }
}

extension AuthUser {
    /// The user as the `CloudFunctions.UserRecord` that `user.v1.created`/`deleted` events carry, as the
    /// Auth emulator sends it (no password hash, salt or `validSince`), with the derived `password`/`phone`
    /// providers.
    public var cloudUserRecord: UserRecord {
        UserRecord(
            uid: localId,
            email: email,
            emailVerified: emailVerified,
            displayName: displayName,
            photoURL: photoURL,
            phoneNumber: phoneNumber,
            disabled: disabled,
            metadata: UserMetadata(creationTime: createdAt, lastSignInTime: lastLoginAt),
            providerData: effectiveProviderData.map {
                UserProviderInfo(
                    uid: $0.rawId, providerId: $0.providerId, email: $0.email, displayName: $0.displayName,
                    photoURL: $0.photoURL, phoneNumber: $0.phoneNumber
                )
            },
            customClaims: customClaims
        )
    }
}
