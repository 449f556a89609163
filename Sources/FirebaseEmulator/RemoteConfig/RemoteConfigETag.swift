import CloudFunctions
import Crypto
import Foundation

/// The ETags of Remote Config templates and fetch answers.
///
/// Clients treat them as opaque; the emulator makes them deterministic: a template's ETag is
/// `etag-<project>-<versionNumber>` (the project ID stands in for the project number), so it names
/// exactly one version of one project, and a never-published template has `etag-<project>-0`.
package enum RemoteConfigETag {
    /// The ETag of version `versionNumber` of `project`'s template (either namespace).
    public static func template(project: String, versionNumber: Int64) -> String {
        "etag-\(project)-\(versionNumber)"
    }

    /// The ETag of a fetch answer: the template version and a digest of the resolved values, so it
    /// changes exactly when what this instance receives changes.
    static func fetch(project: String, namespace: RemoteConfigNamespace, version: Int64, entries: [String: String])
        -> String
    {
        var hasher = SHA256()
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            hasher.update(data: Data(key.utf8))
            hasher.update(data: Data([0]))
            hasher.update(data: Data(value.utf8))
            hasher.update(data: Data([0]))
        }
        let digest = hasher.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
        return "etag-\(project)-\(namespace.rawValue)-\(version)-\(digest)"
    }

    /// The ETag a `validateOnly` publish answers with: the current one with a `-0` suffix.
    public static func validateOnly(_ etag: String) -> String {
        etag + "-0"
    }

    /// The version number an ETag of `project` names, or `nil` when it is not one of ours.
    public static func versionNumber(in etag: String, project: String) -> Int64? {
        let prefix = "etag-\(project)-"
        guard etag.hasPrefix(prefix) else { return nil }
        return Int64(etag.dropFirst(prefix.count))
    }
}
