import Foundation
import CloudFunctions

/// Key rules of the Realtime Database: UTF-8, at most 768 bytes, none of `. $ # [ ] /`
/// and no ASCII control characters (0x00–0x1F, 0x7F).
package enum DatabaseKey: Sendable {
    /// The longest key, in UTF-8 bytes.
    public static let maximumUTF8Length = 768

    /// Checks a key of written data.
    ///
    /// - Throws: `ServiceError.invalidArgument` with `Invalid key: <key>. <reason>`.
    public static func validate(_ key: String) throws(ServiceError) {
        if let reason = problem(key) {
            throw DatabaseErrorMessage.invalidKey(key, reason: reason)
        }
    }

    /// Whether `key` is a valid key.
    public static func isValid(_ key: String) -> Bool {
        problem(key) == nil
    }

    /// The reason a path segment is invalid, worded to follow "segment "x" ..."; `nil` when valid.
    static func pathSegmentProblem(_ segment: String) -> String? {
        guard let reason = problem(segment) else { return nil }
        return reason.replacingOccurrences(of: "Keys ", with: "")
    }

    /// The reason a key is invalid; `nil` when valid.
    static func problem(_ key: String) -> String? {
        var length = 0
        for byte in key.utf8 {
            length += 1
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "["),
                UInt8(ascii: "]"):
                return "Keys must not contain '/', '.', '#', '$', '[', or ']'"
            case 0x00...0x1F, 0x7F:
                return "Keys must not contain ASCII control characters"
            default:
                continue
            }
        }
        if length == 0 { return "Keys must not be empty" }
        if length > maximumUTF8Length { return "Keys must be at most \(maximumUTF8Length) bytes of UTF-8" }
        return nil
    }
}
