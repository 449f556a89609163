import CloudFunctions
import Foundation

/// The body of `POST /iid/v1:batchImport`, which turns APNs device tokens into FCM registration
/// tokens: `{"application": bundle id, "sandbox": Bool, "apns_tokens": [hex, ...]}` (at most 100).
public struct APNSTokenImportRequest: Sendable, Hashable {
    /// The iOS app's bundle id.
    public var application: String
    /// Whether the tokens are for the APNs sandbox.
    public var sandbox: Bool
    /// The APNs device tokens, in hex.
    public var apnsTokens: [String]

    /// The most tokens one request may carry.
    public static let maximumTokens = 100

    /// Reads and checks a request body.
    ///
    /// - Throws: `INVALID_ARGUMENT` naming what is wrong.
    public static func parse(_ body: JSONValue) throws -> APNSTokenImportRequest {
        guard let application = body["application"]?.stringValue, !application.isEmpty else {
            throw ServiceError(.invalidArgument, "application is required: the iOS app's bundle id")
        }
        guard let tokens = body["apns_tokens"]?.arrayValue, !tokens.isEmpty, tokens.count <= maximumTokens else {
            throw ServiceError(.invalidArgument, "apns_tokens must hold 1 to \(maximumTokens) APNs tokens")
        }
        let texts = try tokens.enumerated().map { index, token in
            guard let text = token.stringValue, (16...200).contains(text.count), text.count.isMultiple(of: 2),
                text.allSatisfy(\.isHexDigit)
            else { throw ServiceError(.invalidArgument, "apns_tokens[\(index)] is not a hex APNs device token") }
            return text.lowercased()
        }
        return APNSTokenImportRequest(application: application, sandbox: body["sandbox"]?.boolValue ?? false,
            apnsTokens: texts)
    }
}
