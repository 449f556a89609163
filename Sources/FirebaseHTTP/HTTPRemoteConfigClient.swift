import CloudFunctions
import Foundation

/// `context.remoteConfig` for a functions binary: the Remote Config admin REST API
/// (`{base}/v1/projects/{project}/remoteConfig`) of an emulator, as an administrator.
public struct HTTPRemoteConfigClient: RemoteConfigAdminClient {
    let http: AdminHTTP
    /// The project in the request paths.
    public let project: String

    /// Creates a client; `baseURL` is e.g. `http://127.0.0.1:4400`.
    public init(baseURL: URL, project: String, bearerToken: String = "owner") {
        http = AdminHTTP(baseURL: baseURL, bearerToken: bearerToken)
        self.project = project
    }

    public func getTemplate() async throws -> RemoteConfigTemplateSnapshot {
        snapshot(try await http.send("GET", "/v1/projects/\(project)/remoteConfig"))
    }

    public func publishTemplate(_ template: JSONValue, etag: String?) async throws -> RemoteConfigTemplateSnapshot {
        var body = template
        if case .object(var members) = body {
            members["version"] = nil
            body = .object(members)
        }
        return snapshot(try await http.send("PUT", "/v1/projects/\(project)/remoteConfig", json: body,
            headers: ["If-Match": etag ?? "*"]))
    }

    public func rollback(to versionNumber: Int64) async throws -> RemoteConfigTemplateSnapshot {
        snapshot(try await http.send("POST", "/v1/projects/\(project)/remoteConfig:rollback",
            json: ["versionNumber": .string(String(versionNumber))]))
    }

    private func snapshot(_ answer: AdminHTTP.Answer) -> RemoteConfigTemplateSnapshot {
        RemoteConfigTemplateSnapshot(template: (try? answer.json()) ?? .null, etag: answer.headers["etag"] ?? "")
    }
}
