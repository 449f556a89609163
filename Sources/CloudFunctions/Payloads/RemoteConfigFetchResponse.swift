import Foundation

/// The answer to a client fetch, `POST .../namespaces/{namespace}:fetch`: what the emulator
/// answers and the device model reads.
///
/// The body is `{"state", "entries", "templateVersion"}`; ``etag`` is sent as the `ETag` header
/// (not in the body) and comes back as `If-None-Match` on the next fetch.
public struct RemoteConfigFetchResponse: Sendable, Hashable, Codable {
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

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decode(State.self, forKey: .state)
        entries = try c.decodeIfPresent([String: String].self, forKey: .entries) ?? [:]
        templateVersion = try c.decodeIfPresent(String.self, forKey: .templateVersion) ?? "0"
    }

    /// Creates a response.
    public init(state: State, entries: [String: String], templateVersion: String, etag: String) {
        self.state = state
        self.entries = entries
        self.templateVersion = templateVersion
        self.etag = etag
    }
}
