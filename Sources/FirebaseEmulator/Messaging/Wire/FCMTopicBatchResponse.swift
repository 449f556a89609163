import Foundation
import CloudFunctions

/// The response of the IID batch requests: `{"results": [{}, {"error": "NOT_FOUND"}]}`, one
/// entry per request token, in request order.
public struct FCMTopicBatchResponse: Sendable, Hashable {
    /// The per-token outcomes, index-aligned with the request's tokens.
    package var results: [FCMTopicOutcome]

    /// Creates a response from per-token outcomes.
    package init(results: [FCMTopicOutcome]) {
        self.results = results
    }

    /// The response body.
    public var jsonValue: JSONValue {
        ["results": .array(results.map(\.jsonValue))]
    }

    /// How many tokens succeeded.
    public var successCount: Int { results.count { $0 == .success } }
}
