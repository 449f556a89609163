/// Reads and publishes Remote Config templates, like the Admin SDK's `remoteConfig()`.
public protocol RemoteConfigAdminClient: Sendable {
    /// The current template.
    func getTemplate() async throws -> RemoteConfigTemplateSnapshot
    /// Publishes a template. With an ETag the publish fails if the template changed since;
    /// without one it is forced.
    func publishTemplate(_ template: RemoteConfigTemplate, etag: String?) async throws -> RemoteConfigTemplateSnapshot
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

/// A Remote Config template as the admin API returns it, with its ETag.
public struct RemoteConfigTemplateSnapshot: Sendable, Hashable {
    /// The template: conditions, parameters, parameter groups and version.
    public var template: RemoteConfigTemplate
    /// The ETag to publish a change against.
    public var etag: String

    /// Creates a snapshot.
    public init(template: RemoteConfigTemplate, etag: String) {
        self.template = template
        self.etag = etag
    }

    /// The template's version; version 0 for a template never published.
    public var version: TemplateVersion { template.version ?? TemplateVersion(versionNumber: 0) }

    /// The version number, 0 for a template never published.
    public var versionNumber: Int64 { template.versionNumber }

    /// Each parameter's default value (top level and in groups); parameters whose default is
    /// the in-app default are left out.
    public var defaultValues: [String: String] {
        template.allParameters.compactMapValues { $0.defaultValue?.stringValue }
    }
}

/// The Remote Config client of a runtime without a Remote Config backend: every call fails.
public struct UnavailableRemoteConfig: RemoteConfigAdminClient {
    /// Creates the client.
    public init() {}

    public func getTemplate() async throws -> RemoteConfigTemplateSnapshot {
        throw AdminClientError(service: "remoteConfig")
    }
    public func publishTemplate(_ template: RemoteConfigTemplate, etag: String?) async throws -> RemoteConfigTemplateSnapshot {
        throw AdminClientError(service: "remoteConfig")
    }
    public func rollback(to versionNumber: Int64) async throws -> RemoteConfigTemplateSnapshot {
        throw AdminClientError(service: "remoteConfig")
    }
    public func listVersions(pageSize: Int?, pageToken: String?) async throws -> RemoteConfigVersionList {
        throw AdminClientError(service: "remoteConfig")
    }
}
