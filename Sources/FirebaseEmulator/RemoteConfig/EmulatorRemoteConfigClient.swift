import CloudFunctions
import Foundation

/// The `context.remoteConfig` of functions running in process against the emulator.
package struct EmulatorRemoteConfigClient: RemoteConfigAdminClient {
    let service: RemoteConfigService

    /// Creates a client for the `firebase` namespace of `service`'s project.
    public init(service: RemoteConfigService) {
        self.service = service
    }

    public func getTemplate() async throws -> RemoteConfigTemplateSnapshot {
        Self.snapshot(try service.template())
    }

    public func publishTemplate(_ template: RemoteConfigTemplate, etag: String?) async throws
        -> RemoteConfigTemplateSnapshot
    {
        Self.snapshot(try await service.publish(template, ifMatch: etag ?? "*", origin: .adminSDKNode))
    }

    public func rollback(to versionNumber: Int64) async throws -> RemoteConfigTemplateSnapshot {
        Self.snapshot(try await service.rollback(to: versionNumber, origin: .adminSDKNode))
    }

    public func listVersions(pageSize: Int?, pageToken: String?) async throws -> RemoteConfigVersionList {
        try service.listVersions(pageSize: pageSize, pageToken: pageToken)
    }

    static func snapshot(_ response: RemoteConfigTemplateResponse) -> RemoteConfigTemplateSnapshot {
        RemoteConfigTemplateSnapshot(template: response.template, etag: response.etag)
    }
}
