import CloudFunctions
import FirebaseHTTP
import Foundation

/// The metadata server of Google Cloud's compute platforms (Cloud Run, GKE, Compute Engine):
/// the project id and the access tokens of the service account the code runs as.
///
/// It is reached at `GCE_METADATA_HOST` (`host[:port]`) when set, else at 169.254.169.254, the
/// address of `metadata.google.internal`, which saves a name lookup that off Google Cloud can
/// take seconds. Requests carry `Metadata-Flavor: Google` and an answer counts only when it
/// carries it back. Each request gives up after 3 seconds, so a machine without a metadata
/// server finds out quickly.
package struct MetadataServer: Sendable {
    /// The default address.
    package static let defaultHost = "169.254.169.254"

    /// `host[:port]`.
    package let host: String
    /// How long one request may take.
    package let timeout: Duration

    package init(environment: [String: String], timeout: Duration = .seconds(3)) {
        host = environment["GCE_METADATA_HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultHost
        self.timeout = timeout
    }

    /// How the metadata server is named in errors.
    package var name: String { "the metadata server (\(host))" }

    /// The project the code runs in (`project/project-id`).
    package func projectID() async throws -> String {
        let text = String(decoding: try await get("project/project-id"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw TokenEndpointError("it answered an empty project id") }
        return text
    }

    /// An access token of the default service account for `scopes`.
    package func token(scopes: [String], clock: any BusClock) async throws -> AccessToken {
        let sent = clock.now
        let scopes = AdminHTTP.percentEncoded(scopes.joined(separator: ","), keeping: Set(",".utf8))
        let response = try await exchange("instance/service-accounts/default/token?scopes=" + scopes)
        return try TokenEndpoint.token(from: response, sentAt: sent, quotaProject: nil,
            url: URL(string: "http://\(host)/computeMetadata/v1/instance/service-accounts/default/token")!)
    }

    /// The body at `path` under `/computeMetadata/v1/`.
    private func get(_ path: String) async throws -> Data {
        let response = try await exchange(path)
        guard response.status == 200 else { throw TokenEndpointError("\(path) answered \(response.status)") }
        return response.body
    }

    private func exchange(_ path: String) async throws -> HTTPExchange.Response {
        guard let url = URL(string: "http://\(host)/computeMetadata/v1/" + path) else {
            throw TokenEndpointError("GCE_METADATA_HOST '\(host)' is not a host[:port]")
        }
        let response: HTTPExchange.Response
        do {
            response = try await HTTPExchange.send("GET", url, headers: [("Metadata-Flavor", "Google")], timeout: timeout)
        } catch {
            throw TokenEndpointError("unreachable (\(error))")
        }
        guard response.headers["metadata-flavor"] == "Google" else {
            throw TokenEndpointError("the server there is not a metadata server (no Metadata-Flavor: Google in its answer)")
        }
        return response
    }
}
