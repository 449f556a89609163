import Foundation

/// A page of `remoteConfig:listVersions`: versions newest first, and where to go on.
public struct RemoteConfigVersionList: Sendable, Hashable, Codable {
    /// The versions of this page, newest first (metadata only, no template content).
    public var versions: [TemplateVersion]
    /// The token of the next page, absent on the last page.
    public var nextPageToken: String?

    /// Creates a page.
    public init(versions: [TemplateVersion], nextPageToken: String? = nil) {
        self.versions = versions
        self.nextPageToken = nextPageToken
    }

    private enum CodingKeys: String, CodingKey {
        case versions, nextPageToken
    }

    /// Decodes leniently: a missing `versions` is an empty list.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        versions = try container.decodeIfPresent([TemplateVersion].self, forKey: .versions) ?? []
        nextPageToken = try container.decodeIfPresent(String.self, forKey: .nextPageToken)
    }

    /// Encodes as proto3 JSON does: an empty `versions` list and a missing token are left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if !versions.isEmpty { try container.encode(versions, forKey: .versions) }
        try container.encodeIfPresent(nextPageToken, forKey: .nextPageToken)
    }
}
