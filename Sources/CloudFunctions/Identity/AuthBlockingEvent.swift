import Foundation

/// What a blocking Authentication function receives: the user as it would be saved (before
/// creation) or as it is (before sign-in), and how the request arrived.
public struct AuthBlockingEvent: Sendable {
    /// The user.
    public var data: UserRecord
    /// The event's id.
    public var eventId: String
    /// The event type with the sign-in method, e.g. `providers/cloud.auth/eventTypes/user.beforeCreate:password`.
    public var eventType: String
    /// How the user signs in: `password`, `emailLink`, `phone`, `anonymous`, `custom`, or an IdP id like `google.com`.
    public var signInMethod: String?
    /// The client's IP address.
    public var ipAddress: String?
    /// The client's user agent.
    public var userAgent: String?
    /// The client's locale.
    public var locale: String?
    /// When Authentication made the call.
    public var timestamp: Date
    /// The user's profile at the identity provider, for IdP sign-ins.
    public var additionalUserInfo: AdditionalUserInfo?
    /// The IdP's tokens, when the trigger asks for them.
    public var credential: Credential?
    /// The function's context: logger, Admin clients, deadline.
    public var context: RequestContext

    /// The user (the same as ``data``).
    public var user: UserRecord { data }

    /// Creates an event.
    public init(
        data: UserRecord,
        eventId: String = UUID().uuidString,
        eventType: String,
        signInMethod: String? = nil,
        ipAddress: String? = nil,
        userAgent: String? = nil,
        locale: String? = nil,
        timestamp: Date = Date(),
        additionalUserInfo: AdditionalUserInfo? = nil,
        credential: Credential? = nil,
        context: RequestContext
    ) {
        self.data = data
        self.eventId = eventId
        self.eventType = eventType
        self.signInMethod = signInMethod
        self.ipAddress = ipAddress
        self.userAgent = userAgent
        self.locale = locale
        self.timestamp = timestamp
        self.additionalUserInfo = additionalUserInfo
        self.credential = credential
        self.context = context
    }

    /// The user's profile at an identity provider.
    public struct AdditionalUserInfo: Sendable, Hashable {
        /// The provider, e.g. `google.com`.
        public var providerId: String?
        /// The profile the provider returned.
        public var profile: JSONValue?
        /// The user name, for providers that have one.
        public var username: String?
        /// Whether the user is new.
        public var isNewUser: Bool

        /// Creates the info.
        public init(providerId: String? = nil, profile: JSONValue? = nil, username: String? = nil, isNewUser: Bool) {
            self.providerId = providerId
            self.profile = profile
            self.username = username
            self.isNewUser = isNewUser
        }
    }

    /// An identity provider's tokens.
    public struct Credential: Sendable, Hashable {
        /// The provider, e.g. `google.com`.
        public var providerId: String
        /// The OAuth ID token.
        public var idToken: String?
        /// The OAuth access token.
        public var accessToken: String?
        /// The OAuth refresh token.
        public var refreshToken: String?

        /// Creates a credential.
        public init(providerId: String, idToken: String? = nil, accessToken: String? = nil, refreshToken: String? = nil) {
            self.providerId = providerId
            self.idToken = idToken
            self.accessToken = accessToken
            self.refreshToken = refreshToken
        }
    }
}
