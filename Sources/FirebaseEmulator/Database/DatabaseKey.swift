import Foundation
import CloudFunctions

/// Key rules of the Realtime Database: UTF-8, at most 768 bytes, none of `. $ # [ ] /`
/// and no ASCII control characters (0x00–0x1F, 0x7F).
package enum DatabaseKey: Sendable {
    /// Checks a key of written data.
    ///
    /// - Throws: `ServiceError.invalidArgument` with `Invalid key: <key>. <reason>`.
    public static func validate(_ key: String) throws(ServiceError) {
        if let reason = DatabaseKeyRule.problem(key) {
            throw DatabaseErrorMessage.invalidKey(key, reason: reason)
        }
    }

    /// Whether `key` is a valid key.
    public static func isValid(_ key: String) -> Bool {
        DatabaseKeyRule.problem(key) == nil
    }

    /// The reason a path segment is invalid, worded to follow "segment "x" ..."; `nil` when valid.
    static func pathSegmentProblem(_ segment: String) -> String? {
        guard let reason = DatabaseKeyRule.problem(segment) else { return nil }
        return reason.replacingOccurrences(of: "Keys ", with: "")
    }
}
