import Foundation
import CloudFunctions

/// The base64 forms the Auth wire formats use: standard and URL-safe, padded or not (the
/// JWT codec's, under the names the Auth code reads).
package enum AuthBase64 {
    /// Decodes standard or URL-safe base64, with or without `=` padding.
    ///
    /// - Returns: the bytes, or `nil` when the text is not base64.
    public static func decode(_ text: String) -> Data? { JSONWebToken.base64URLDecode(text) }

    /// Encodes bytes as URL-safe base64 without padding (the JWT form).
    public static func urlEncoded(_ data: Data) -> String { JSONWebToken.base64URLEncode(data) }
}
