import CloudFunctions
import Foundation

/// A template as the Admin API answers with it: the body, and the `ETag` response header.
public struct RemoteConfigTemplateResponse: Sendable, Hashable {
    /// The template, with its version metadata (the response body).
    public var template: RemoteConfigTemplate
    /// The value of the `ETag` header; send it back as `If-Match` to publish over this version.
    public var etag: String

    /// Creates a response.
    public init(template: RemoteConfigTemplate, etag: String) {
        self.template = template
        self.etag = etag
    }
}
