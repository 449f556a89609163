import CloudFunctions
import FirebaseHTTP
import Foundation

/// A user's credentials (`"type": "authorized_user"`), as `gcloud auth application-default
/// login` writes them: a refresh token exchanged for access tokens.
///
/// Its description names the client, never the secret or the token.
public struct AuthorizedUserCredentials: Sendable, CustomStringConvertible, CustomReflectable {
    /// The OAuth client the refresh token was issued to.
    public let clientID: String
    private let clientSecret: String
    private let refreshToken: String
    /// The project charged for the calls (`quota_project_id`), which APIs such as FCM need for
    /// user credentials.
    public let quotaProject: String?
    /// Where the refresh token is exchanged: the file's `token_uri`, else Google's endpoint.
    public let tokenURI: URL

    /// Reads the file's fields.
    ///
    /// - Throws: a reason naming the missing field (never a value).
    package init(_ json: JSONValue) throws(TokenEndpointError) {
        let fields = CredentialFields(json: json, what: "the authorized_user credentials")
        clientID = try fields.required("client_id")
        clientSecret = try fields.required("client_secret")
        refreshToken = try fields.required("refresh_token")
        quotaProject = fields.optional("quota_project_id")
        tokenURI = try fields.tokenURI()
    }

    /// Exchanges the refresh token for an access token (the refresh-token grant; user
    /// credentials carry their scopes already).
    package func token(quotaProject override: String?, clock: any BusClock) async throws -> AccessToken {
        let grant = [
            ("grant_type", "refresh_token"), ("client_id", clientID), ("client_secret", clientSecret),
            ("refresh_token", refreshToken),
        ]
        return try await TokenEndpoint(url: tokenURI).token(for: grant, quotaProject: override ?? quotaProject, clock: clock)
    }

    public var description: String { "user credentials of OAuth client \(clientID)" }

    public var customMirror: Mirror {
        Mirror(self, children: ["clientID": clientID, "quotaProject": quotaProject as Any, "tokenURI": tokenURI])
    }
}
