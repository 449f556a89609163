import CloudFunctions
import Foundation

extension RemoteConfigService {
    /// The update type an `If-Match` header asks for, given the current version.
    ///
    /// `*` forces (`FORCED_UPDATE`); the current version's ETag (optionally quoted or weak, as HTTP
    /// allows) publishes over it (`INCREMENTAL_UPDATE`).
    ///
    /// - Throws: 412 `FAILED_PRECONDITION` `[VERSION_MISMATCH]: ...` when the header is missing or
    ///   names anything else.
    static func updateType(ifMatch: String?, current: Int64, project: String) throws(ServiceError)
        -> TemplateVersion.UpdateType
    {
        var etag = ifMatch?.trimmingCharacters(in: .whitespaces) ?? ""
        if etag.hasPrefix("W/") { etag.removeFirst(2) }
        if etag.count >= 2, etag.hasPrefix("\""), etag.hasSuffix("\"") { etag = String(etag.dropFirst().dropLast()) }
        if etag == "*" { return .forcedUpdate }
        if etag == RemoteConfigETag.template(project: project, versionNumber: current) { return .incrementalUpdate }
        let found: String
        if etag.isEmpty {
            found = "no If-Match header. Send the ETag of the current template, or '*' to force the update"
        } else if let claimed = RemoteConfigETag.versionNumber(in: etag, project: project) {
            found = "\(claimed)"
        } else {
            found = "ETag '\(etag)', which is not an ETag of project \(project)"
        }
        throw ServiceError(.preconditionFailed, "[VERSION_MISMATCH]: Expected version \(current), found \(found)")
    }

    /// 404 for a version that was never published or is no longer kept.
    static func versionNotFound(_ versionNumber: Int64) -> ServiceError {
        ServiceError(.notFound, 
            "[VERSION_NOT_FOUND]: Version \(versionNumber) of the Remote Config template was not found: it was "
                + "never published or is older than the last \(RemoteConfigVersionTable.retainedVersions) versions")
    }

    /// Checks an int64 argument that must be greater than zero.
    ///
    /// - Throws: `INVALID_ARGUMENT` `[VALIDATION_ERROR]: <name> must be greater than 0`.
    static func requirePositive(_ value: Int64, name: String) throws(ServiceError) {
        guard value > 0 else {
            throw ServiceError(.invalidArgument, "[VALIDATION_ERROR]: \(name) must be greater than 0, got \(value)")
        }
    }
}
