import Foundation
import CloudFunctions

/// One identity provider linked to an emulated Auth user (`providerUserInfo` on the wire).
package struct AuthProviderInfo: Sendable, Hashable, Codable {
    /// The provider, e.g. `password`, `phone`, `google.com`, `facebook.com`.
    public var providerId: String
    /// The user's id at the provider (`rawId` on the wire, `uid` in the SDKs).
    public var rawId: String
    /// The email the provider reports.
    public var email: String?
    /// The display name the provider reports.
    public var displayName: String?
    /// The photo URL the provider reports.
    public var photoURL: String?
    /// The phone number the provider reports.
    public var phoneNumber: String?
    /// The federated id, when the provider has one.
    public var federatedId: String?

    /// Creates a provider entry.
    public init(
        providerId: String,
        rawId: String,
        email: String? = nil,
        displayName: String? = nil,
        photoURL: String? = nil,
        phoneNumber: String? = nil,
        federatedId: String? = nil
    ) {
        self.providerId = providerId
        self.rawId = rawId
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.federatedId = federatedId
    }

    /// The SDK name of ``rawId``.
    public var uid: String { rawId }

    /// The Identity Toolkit wire form.
    public var userInfo: IdentityToolkitUser.Provider {
        var info = IdentityToolkitUser.Provider(providerId: providerId, rawId: rawId)
        info.federatedId = federatedId
        info.email = email
        info.displayName = displayName
        info.photoUrl = photoURL
        info.phoneNumber = phoneNumber
        return info
    }
}
