import Foundation

/// The tokens handed to a signed-in client.
package struct AuthSession: Sendable, Hashable {
    /// The unsigned emulator ID token.
    public var idToken: String
    /// The opaque refresh token.
    public var refreshToken: String
    /// The ID token lifetime in seconds, as text (`"3600"`).
    public var expiresIn: String

    /// Creates a session.
    public init(idToken: String, refreshToken: String, expiresIn: String = String(AuthIDToken.lifetime)) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}
