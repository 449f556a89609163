import CloudFunctions
import Crypto
import Foundation

/// The answer to a client fetch, `POST .../namespaces/{namespace}:fetch`.
///
/// The body is `{"state", "entries", "templateVersion"}`; ``etag`` is sent as the `ETag` header
/// (not in the body) and comes back as `If-None-Match` on the next fetch.
package struct RemoteConfigFetchResponse: Sendable, Hashable, Codable {
    /// What the client does with ``entries``.
    public enum State: String, Sendable, Hashable, Codable {
        /// Replace the fetched values with ``entries``.
        case update = "UPDATE"
        /// The values did not change since the fetch whose ETag the client sent; keep them.
        case noChange = "NO_CHANGE"
        /// The namespace has no template: drop it.
        case noTemplate = "NO_TEMPLATE"
        /// The template gives this instance no values: clear the fetched set.
        case emptyConfig = "EMPTY_CONFIG"
    }

    /// What the client does with ``entries``.
    public var state: State
    /// The resolved values, key → string value (empty unless ``state`` is ``State/update``).
    public var entries: [String: String]
    /// The template version the values come from, as a string (`"0"` without a template).
    public var templateVersion: String
    /// The `ETag` header: identifies the template version and the values this instance got.
    public var etag: String = ""

    private enum CodingKeys: String, CodingKey {
        case state, entries, templateVersion
    }

    /// Creates a response.
    public init(state: State, entries: [String: String], templateVersion: String, etag: String) {
        self.state = state
        self.entries = entries
        self.templateVersion = templateVersion
        self.etag = etag
    }

    /// The ETag of a fetch answer: the template version and a digest of the resolved values, so it
    /// changes exactly when what this instance receives changes.
    static func etag(project: String, namespace: RemoteConfigNamespace, version: Int64, entries: [String: String])
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
}
