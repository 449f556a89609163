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

    /// Base64url without padding (the JWT form).
    package static func base64URLEncode(_ data: Data) -> String {
        var text = data.base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// Decodes base64url or standard base64, with or without `=` padding; `nil` when the text
    /// is not base64.
    package static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        var normalized = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while normalized.hasSuffix("=") { normalized.removeLast() }
        guard !normalized.contains("="), normalized.count % 4 != 1 else { return nil }
        normalized += String(repeating: "=", count: (4 - normalized.count % 4) % 4)
        return Data(base64Encoded: normalized)
    }
}
