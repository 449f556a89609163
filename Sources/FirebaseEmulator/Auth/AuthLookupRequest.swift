import Foundation

/// The administrator form of `accounts:lookup`: users by uid, email, phone number or federated id, in any mix.
public struct AuthLookupRequest: Sendable, Hashable, Codable {
    /// A federated identity: the provider and the user's id there.
    public struct FederatedUserId: Sendable, Hashable, Codable {
        /// The provider, e.g. `facebook.com`.
        public var providerId: String?
        /// The user's id at the provider.
        public var rawId: String?

        /// Creates an identity.
        public init(providerId: String?, rawId: String?) {
            self.providerId = providerId
            self.rawId = rawId
        }
    }

    /// Uids.
    public var localId: [String]?
    /// Email addresses (matched case-insensitively).
    public var email: [String]?
    /// Phone numbers.
    public var phoneNumber: [String]?
    /// Federated identities.
    public var federatedUserId: [FederatedUserId]?

    /// Creates a request.
    public init(
        localId: [String]? = nil,
        email: [String]? = nil,
        phoneNumber: [String]? = nil,
        federatedUserId: [FederatedUserId]? = nil
    ) {
        self.localId = localId
        self.email = email
        self.phoneNumber = phoneNumber
        self.federatedUserId = federatedUserId
    }
}
