import Foundation
import CloudFunctions

/// The base64 forms the Auth wire formats use: standard and URL-safe, padded or not.
package enum AuthBase64 {
    /// Decodes standard or URL-safe base64, with or without `=` padding.
    ///
    /// - Returns: the bytes, or `nil` when the text is not base64.
    public static func decode(_ text: String) -> Data? {
        var normalized = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while normalized.hasSuffix("=") { normalized.removeLast() }
        guard !normalized.contains("="), normalized.count % 4 != 1 else { return nil }
        normalized += String(repeating: "=", count: (4 - normalized.count % 4) % 4)
        return Data(base64Encoded: normalized)
    }

    /// Encodes bytes as URL-safe base64 without padding (the JWT form).
    public static func urlEncoded(_ data: Data) -> String {
        var text = data.base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
