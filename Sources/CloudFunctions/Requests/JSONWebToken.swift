import Foundation

/// A compact JSON Web Token split into its parts; nothing is verified here.
package struct JSONWebToken: Sendable {
    /// The header (`alg`, `kid`, `typ`).
    package var header: [String: JSONValue]
    /// The payload's claims.
    package var claims: [String: JSONValue]
    /// The bytes the signature covers: `header.payload` as sent.
    package var signingInput: Data
    /// The signature (empty for `alg: none`).
    package var signature: Data

    /// Splits and decodes a token.
    ///
    /// - Throws: ``TokenError`` when it is not three base64url parts with JSON objects in the first two.
    package init(_ token: String) throws(TokenError) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw TokenError("the token is not a JWT (three parts separated by '.')") }
        guard let headerData = Self.base64URLDecode(parts[0]), let payload = Self.base64URLDecode(parts[1]),
            let signature = Self.base64URLDecode(parts[2])
        else { throw TokenError("the token's parts are not base64url") }
        guard let header = (try? JSONValue(parsing: headerData))?.objectValue,
            let claims = (try? JSONValue(parsing: payload))?.objectValue
        else { throw TokenError("the token's header or payload is not a JSON object") }
        self.header = header
        self.claims = claims
        self.signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        self.signature = signature
    }

    /// Encodes claims as an unsigned token (`alg: none`), as the Firebase emulators issue them.
    package static func unsigned(_ claims: [String: JSONValue]) -> String {
        let header: JSONValue = ["alg": "none", "typ": "JWT"]
        return base64URLEncode(header.serializedData()) + "." + base64URLEncode(JSONValue.object(claims).serializedData())
            + "."
    }

    /// Base64url without padding.
    package static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url, with or without padding.
    package static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return Data(base64Encoded: base64) }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
