/// Reads and publishes Remote Config templates, like the Admin SDK's `remoteConfig()`.
public protocol RemoteConfigAdminClient: Sendable {
    /// The current template.
    func getTemplate() async throws -> RemoteConfigTemplateSnapshot
    /// Publishes a template (its JSON as the REST API takes it). With an ETag the publish
    /// fails if the template changed since; without one it is forced.
    func publishTemplate(_ template: JSONValue, etag: String?) async throws -> RemoteConfigTemplateSnapshot
    /// Publishes a new version with the content of an earlier one.
    func rollback(to versionNumber: Int64) async throws -> RemoteConfigTemplateSnapshot
    /// The published versions, newest first, `pageSize` (1...300, all kept ones by default) at a
    /// time; pass a page's `nextPageToken` to get the next.
    func listVersions(pageSize: Int?, pageToken: String?) async throws -> RemoteConfigVersionList
}

extension RemoteConfigAdminClient {
    /// The published versions, newest first: the first page of up to 300.
    public func listVersions() async throws -> RemoteConfigVersionList {
        try await listVersions(pageSize: nil, pageToken: nil)
    }
}

/// A Remote Config template as the admin API returns it.
public struct RemoteConfigTemplateSnapshot: Sendable, Hashable {
    /// The template JSON: conditions, parameters, parameter groups and version.
    public var template: JSONValue
    /// The ETag to publish a change against.
    public var etag: String

    /// Creates a snapshot.
    public init(template: JSONValue, etag: String) {
        self.template = template
        self.etag = etag
    }

    /// The template's version; version 0 for a template never published.
    public var version: TemplateVersion {
        (try? template["version"]?.decode(as: TemplateVersion.self)) ?? TemplateVersion(versionNumber: 0)
    }

    /// The version number, 0 for a template never published (read on its own, so that another
    /// malformed version field does not hide it).
    public var versionNumber: Int64 {
        switch template["version"]?["versionNumber"] {
        case .string(let text)?: Int64(text) ?? 0
        case .number(let number)?: Int64(exactly: number) ?? 0
        default: 0
        }
    }

    /// Each parameter's default value (top level and in groups); parameters whose default is
    /// the in-app default are left out.
    public var defaultValues: [String: String] {
        var values: [String: String] = [:]
        var sources = [template["parameters"]?.objectValue ?? [:]]
        for group in (template["parameterGroups"]?.objectValue ?? [:]).values {
            sources.append(group["parameters"]?.objectValue ?? [:])
        }
        for parameters in sources {
            for (key, parameter) in parameters {
                if let value = parameter["defaultValue"]?["value"]?.stringValue { values[key] = value }
            }
        }
        return values
    }
}

/// The Remote Config client of a runtime without a Remote Config backend: every call fails.
public struct UnavailableRemoteConfig: RemoteConfigAdminClient {
    /// Creates the client.
    public init() {}

    public func getTemplate() async throws -> RemoteConfigTemplateSnapshot {
        throw AdminClientError(service: "remoteConfig")
    }
    public func publishTemplate(_ template: JSONValue, etag: String?) async throws -> RemoteConfigTemplateSnapshot {
        throw AdminClientError(service: "remoteConfig")
    }
    public func rollback(to versionNumber: Int64) async throws -> RemoteConfigTemplateSnapshot {
        throw AdminClientError(service: "remoteConfig")
    }
    public func listVersions(pageSize: Int?, pageToken: String?) async throws -> RemoteConfigVersionList {
        throw AdminClientError(service: "remoteConfig")
    }
}
