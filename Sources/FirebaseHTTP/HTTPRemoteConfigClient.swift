import CloudFunctions
import Foundation

/// `context.remoteConfig` for a functions binary: the Remote Config REST API
/// (`{base}/v1/projects/{project}/remoteConfig`), of Google (``productionBaseURL``) or of an
/// emulator. Answers may come gzipped: Google's API sends the ETag reliably only then.
public struct HTTPRemoteConfigClient: RemoteConfigAdminClient, AdminHTTPClient {
    /// Google's Remote Config API.
    public static let productionBaseURL = URL(string: "https://firebaseremoteconfig.googleapis.com")!

    let http: AdminHTTP

    /// Creates a client of `baseURL` acting as `credentials`.
    public init(baseURL: URL, credentials: any AdminCredentials) {
        http = AdminHTTP(baseURL: baseURL, credentials: credentials, acceptsGzip: true)
    }

    public func getTemplate() async throws -> RemoteConfigTemplateSnapshot {
        try snapshot(try await http.send("GET", try await path()))
    }

    /// Publishes the template without its version (the service numbers the new one).
    public func publishTemplate(_ template: RemoteConfigTemplate, etag: String?) async throws
        -> RemoteConfigTemplateSnapshot
    {
        let body = try JSONValue(encoding: template.withVersion(nil))
        return try snapshot(try await http.send("PUT", try await path(), json: body, headers: ["If-Match": etag ?? "*"]))
    }

    public func rollback(to versionNumber: Int64) async throws -> RemoteConfigTemplateSnapshot {
        try snapshot(try await http.send("POST", try await path(":rollback"),
            json: ["versionNumber": .string(String(versionNumber))]))
    }

    public func listVersions(pageSize: Int?, pageToken: String?) async throws -> RemoteConfigVersionList {
        var query: [URLQueryItem] = []
        if let pageSize { query.append(URLQueryItem(name: "pageSize", value: String(pageSize))) }
        if let pageToken { query.append(URLQueryItem(name: "pageToken", value: pageToken)) }
        let answer = try await http.send("GET", try await path(":listVersions"), query: query)
        return try JSONDecoder().decode(RemoteConfigVersionList.self, from: answer.body.isEmpty ? Data("{}".utf8) : answer.body)
    }

    private func path(_ suffix: String = "") async throws -> String {
        "/v1/projects/\(try await http.credentials.projectID())/remoteConfig\(suffix)"
    }

    /// The template an answer holds, and its ETag.
    ///
    /// - Throws: ``AdminHTTPError`` when the answer is not a template.
    private func snapshot(_ answer: AdminHTTP.Answer) throws -> RemoteConfigTemplateSnapshot {
        do {
            let template = try JSONDecoder().decode(RemoteConfigTemplate.self, from: answer.body)
            return RemoteConfigTemplateSnapshot(template: template, etag: answer.headers["etag"] ?? "")
        } catch {
            throw AdminHTTPError(status: 200, message: "the Remote Config answer is not a template: \(error)",
                answer: answer)
        }
    }
}
