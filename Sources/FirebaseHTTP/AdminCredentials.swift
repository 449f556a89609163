import Foundation

/// Who Admin calls act as: the project their paths name and the bearer token they carry.
///
/// Emulators take a fixed token (``FixedCredentials``); Google's services take OAuth 2 access
/// tokens, which `GoogleAuth`'s application default credentials get and renew.
public protocol AdminCredentials: Sendable {
    /// The Google Cloud project the calls are for.
    func projectID() async throws -> String
    /// A token to send now: one that will not expire during the call.
    func accessToken() async throws -> AccessToken
    /// A service answered 401 to `token`: the next ``accessToken()`` brings another one, when
    /// these credentials can get one.
    func refused(_ token: AccessToken) async
}

/// An OAuth 2 access token and until when it may be used. Printed, it shows its expiry only.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The token, sent as `Authorization: Bearer <value>`.
    public var value: String
    /// When the token stops being accepted.
    public var expiresAt: Date
    /// The project charged for the calls (`x-goog-user-project`), which user credentials name.
    public var quotaProject: String?

    /// Creates a token.
    public init(value: String, expiresAt: Date, quotaProject: String? = nil) {
        self.value = value
        self.expiresAt = expiresAt
        self.quotaProject = quotaProject
    }

    public var description: String { "access token (expires \(expiresAt))" }

    public var customMirror: Mirror { Mirror(self, children: ["expiresAt": expiresAt, "quotaProject": quotaProject as Any]) }
}

/// Credentials that never change: an emulator's `owner` token and the project it was given.
public struct FixedCredentials: AdminCredentials {
    /// The project, when one was given.
    public let project: String?
    /// The token sent.
    public let token: AccessToken

    /// Creates credentials; the Firebase emulators take `owner` as an administrator's token.
    public init(project: String?, token: String = "owner") {
        self.project = project
        self.token = AccessToken(value: token, expiresAt: .distantFuture)
    }

    public func projectID() async throws -> String {
        guard let project else { throw AdminHTTPError(status: 0, message: "no project was given for these calls") }
        return project
    }

    public func accessToken() async throws -> AccessToken { token }

    public func refused(_ token: AccessToken) async {}
}
