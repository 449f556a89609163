import Foundation
import CloudFunctions

/// The per-token result of a topic subscription change.
public enum FCMTopicOutcome: Sendable, Hashable {
    /// The change was applied (or was already in place).
    case success
    /// The change failed for this token.
    case failure(FCMTopicErrorCode)

    /// The IID batch result object: `{}` or `{"error": "NOT_FOUND"}`.
    public var jsonValue: JSONValue {
        switch self {
        case .success: .object([:])
        case .failure(let code): ["error": .string(code.rawValue)]
        }
    }
}
