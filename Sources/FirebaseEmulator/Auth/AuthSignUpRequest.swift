import CloudFunctions
import Foundation

/// The body of `accounts:signUp` (client sign-up) and `projects/{p}/accounts` (admin create).
///
/// Clients may send `email`, `password` and `displayName` (neither email nor password: an anonymous user);
/// administrators may also send `localId`, `photoUrl`, `phoneNumber`, `emailVerified` and `disabled`. A
/// client's `idToken` links the email and password to its signed-in user (an anonymous one, say) instead.
public struct AuthSignUpRequest: Sendable, Hashable, Codable {
    /// The email address (lower-cased when stored).
    public var email: String?
    /// The clear password; stored only as a bcrypt hash.
    public var password: String?
    /// The display name.
    public var displayName: String?
    /// The photo URL (admin only).
    public var photoUrl: String?
    /// The E.164 phone number (admin only).
    public var phoneNumber: String?
    /// Whether the email is verified (admin only).
    public var emailVerified: Bool?
    /// Whether the account starts disabled (admin only).
    public var disabled: Bool?
    /// The uid to use (admin only); generated when absent.
    public var localId: String?
    /// The signed-in user to link the email and password to (client only).
    public var idToken: String?

    /// Creates a request.
    public init(
        email: String? = nil,
        password: String? = nil,
        displayName: String? = nil,
        photoUrl: String? = nil,
        phoneNumber: String? = nil,
        emailVerified: Bool? = nil,
        disabled: Bool? = nil,
        localId: String? = nil,
        idToken: String? = nil
    ) {
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.phoneNumber = phoneNumber
        self.emailVerified = emailVerified
        self.disabled = disabled
        self.localId = localId
        self.idToken = idToken
    }
}

/// The answer to a sign-up: `{kind, localId, email?, displayName?, idToken?, refreshToken?, expiresIn?}`
/// (tokens only for client sign-ups).
package struct AuthSignUpResponse: Sendable, Hashable, Codable {
    /// Always `identitytoolkit#SignupNewUserResponse`.
    public var kind = "identitytoolkit#SignupNewUserResponse"
    /// The new user's uid.
    public var localId: String
    /// The canonical email.
    public var email: String?
    /// The display name.
    public var displayName: String?
    /// A fresh ID token (client sign-ups).
    public var idToken: String?
    /// A refresh token (client sign-ups).
    public var refreshToken: String?
    /// The ID token lifetime in seconds, `"3600"` (client sign-ups).
    public var expiresIn: String?
}

/// The answer to `accounts:signInWithPassword`.
package struct AuthSignInResponse: Sendable, Hashable, Codable {
    /// Always `identitytoolkit#VerifyPasswordResponse`.
    public var kind = "identitytoolkit#VerifyPasswordResponse"
    /// Always `true`.
    public var registered = true
    /// The user's uid.
    public var localId: String
    /// The canonical email.
    public var email: String
    /// The display name.
    public var displayName: String?
    /// A fresh ID token.
    public var idToken: String
    /// A refresh token.
    public var refreshToken: String
    /// The ID token lifetime in seconds, `"3600"`.
    public var expiresIn: String
}

/// The answer of `accounts:signInWithCustomToken`.
package struct AuthCustomTokenSignInResponse: Sendable, Hashable, Codable {
    /// Always `identitytoolkit#VerifyCustomTokenResponse`.
    public var kind = "identitytoolkit#VerifyCustomTokenResponse"
    /// A fresh ID token.
    public var idToken: String
    /// A refresh token.
    public var refreshToken: String
    /// The ID token lifetime in seconds, `"3600"`.
    public var expiresIn: String
    /// Whether the user was created by this sign-in.
    public var isNewUser: Bool
}

/// The answer of `accounts:signInWithIdp`: the provider's profile and, unless the email
/// belongs to another account (`needConfirmation`), the session.
package struct AuthIdpSignInResponse: Sendable, Hashable, Codable {
    /// Always `identitytoolkit#VerifyAssertionResponse`.
    public var kind = "identitytoolkit#VerifyAssertionResponse"
    /// The user's id at the provider.
    public var federatedId: String
    /// The provider, such as `google.com`.
    public var providerId: String
    /// The user's uid (the other account's, with `needConfirmation`).
    public var localId: String?
    /// The provider's email, canonical.
    public var email: String?
    /// Whether the email is verified.
    public var emailVerified: Bool
    /// The display name.
    public var displayName: String?
    /// The photo URL.
    public var photoUrl: String?
    /// The provider's claims, as JSON text.
    public var rawUserInfo: String
    /// The provider's ID token, when the client asked for the credential.
    public var oauthIdToken: String?
    /// A fresh ID token.
    public var idToken: String?
    /// A refresh token.
    public var refreshToken: String?
    /// The ID token lifetime in seconds, `"3600"`.
    public var expiresIn: String?
    /// Whether the user was created by this sign-in.
    public var isNewUser: Bool?
    /// Set when another account has this email: the client signs in to it and links the provider.
    public var needConfirmation: Bool?
}

/// The answer of `securetoken.googleapis.com/v1/token` (snake_case on the wire).
package struct AuthRefreshResponse: Sendable, Hashable, Codable {
    /// The new ID token.
    public var idToken: String
    /// The same as ``idToken``.
    public var accessToken: String
    /// `"3600"`.
    public var expiresIn: String
    /// A new refresh token.
    public var refreshToken: String
    /// `"Bearer"`.
    public var tokenType = "Bearer"
    /// The user's uid.
    public var userId: String
    /// The project number (``AuthService/projectNumber``).
    public var projectId: String

    enum CodingKeys: String, CodingKey {
        case idToken = "id_token", accessToken = "access_token", expiresIn = "expires_in"
        case refreshToken = "refresh_token", tokenType = "token_type", userId = "user_id", projectId = "project_id"
    }
}
