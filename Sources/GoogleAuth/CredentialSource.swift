import CloudFunctions
import FirebaseHTTP
import Foundation

/// Where application default credentials were found, and what they give.
package enum CredentialSource: Sendable {
    /// A service account key file.
    case serviceAccount(ServiceAccountKey, origin: String)
    /// A user's credentials file, with the project of gcloud's active configuration.
    case authorizedUser(AuthorizedUserCredentials, origin: String, gcloudProject: String?)
    /// The metadata server, which answered with its project.
    case metadataServer(MetadataServer, project: String)

    /// How the source is named in errors.
    package var name: String {
        switch self {
        case .serviceAccount(let key, let origin): "\(key) from \(origin)"
        case .authorizedUser(let user, let origin, _): "\(user) from \(origin)"
        case .metadataServer(let server, _): server.name
        }
    }

    /// Reads a credentials file: a service account key or a user's credentials.
    ///
    /// - Throws: why it cannot be used, with nothing of its content.
    package static func file(at path: String, origin: String, gcloudProject: @autoclosure () -> String?)
        throws(TokenEndpointError) -> CredentialSource
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TokenEndpointError(FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        guard let json = try? JSONValue(parsing: data), json.objectValue != nil else {
            throw TokenEndpointError("not a JSON object")
        }
        switch json["type"]?.stringValue {
        case "service_account":
            return .serviceAccount(try ServiceAccountKey(json), origin: origin)
        case "authorized_user":
            return .authorizedUser(try AuthorizedUserCredentials(json), origin: origin, gcloudProject: gcloudProject())
        case let type?:
            throw TokenEndpointError("credentials of type '\(type)' are not supported (service_account or authorized_user)")
        case nil:
            throw TokenEndpointError("no type (service_account or authorized_user)")
        }
    }

    /// A token for `scopes`.
    package func token(scopes: [String], quotaProject: String?, clock: any BusClock) async throws -> AccessToken {
        switch self {
        case .serviceAccount(let key, _): try await key.token(scopes: scopes, clock: clock)
        case .authorizedUser(let user, _, _): try await user.token(quotaProject: quotaProject, clock: clock)
        case .metadataServer(let server, _): try await server.token(scopes: scopes, clock: clock)
        }
    }
}
