import CloudFunctions
import Crypto
import CryptoExtras
import FirebaseHTTP
import Foundation

/// A service account's key file (`"type": "service_account"`, as the Cloud console downloads
/// it), and the signed assertion it exchanges for access tokens.
///
/// Its description names the account and key id, never the key.
public struct ServiceAccountKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The account, e.g. `functions@my-project.iam.gserviceaccount.com`: the assertion's issuer.
    public let clientEmail: String
    /// The key's id: the assertion's `kid`.
    public let privateKeyID: String
    /// Where the assertion is exchanged, and its audience.
    public let tokenURI: URL
    /// The project the account belongs to.
    public let projectID: String?
    private let privateKey: _RSA.Signing.PrivateKey

    /// Reads a key file's fields.
    ///
    /// - Throws: a reason naming the missing or malformed field (never its value).
    package init(_ json: JSONValue) throws(TokenEndpointError) {
        let fields = CredentialFields(json: json, what: "the service account key")
        clientEmail = try fields.required("client_email")
        privateKeyID = try fields.required("private_key_id")
        let pem = try fields.required("private_key")
        guard let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) else {
            throw TokenEndpointError("the service account key's private_key is not an RSA private key in PEM form "
                + "(of at least 2048 bits)")
        }
        privateKey = key
        tokenURI = try fields.tokenURI()
        projectID = fields.optional("project_id")
    }

    /// The RS256 JWT-bearer assertion for `scopes`: header `{alg, typ, kid}`, claims `iss` (the
    /// account), `scope`, `aud` (the token URI), `iat` and `exp` (an hour later, the longest
    /// Google accepts).
    package func assertion(scopes: [String], now: Date) throws -> String {
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        let header: JSONValue = ["alg": "RS256", "typ": "JWT", "kid": .string(privateKeyID)]
        let claims: JSONValue = [
            "iss": .string(clientEmail),
            "scope": .string(scopes.joined(separator: " ")),
            "aud": .string(tokenURI.absoluteString),
            "iat": .number(Double(issued)),
            "exp": .number(Double(issued + 3600)),
        ]
        let input = JSONWebToken.base64URLEncode(header.serializedData()) + "."
            + JSONWebToken.base64URLEncode(claims.serializedData())
        let signature = try privateKey.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + JSONWebToken.base64URLEncode(signature.rawRepresentation)
    }

    /// Exchanges an assertion for an access token at the token URI.
    package func token(scopes: [String], clock: any BusClock) async throws -> AccessToken {
        let grant = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
            ("assertion", try assertion(scopes: scopes, now: clock.now)),
        ]
        return try await TokenEndpoint(url: tokenURI).token(for: grant, quotaProject: nil, clock: clock)
    }

    public var description: String { "service account \(clientEmail) (key \(privateKeyID))" }

    public var customMirror: Mirror {
        Mirror(self, children: ["clientEmail": clientEmail, "privateKeyID": privateKeyID, "tokenURI": tokenURI])
    }
}
