import CloudFunctions
import Crypto
import CryptoExtras
import Foundation
import GoogleAuth
import Testing

@Suite("Service account keys: the JWT-bearer assertion")
struct ServiceAccountKeyTests {
    @Test("the assertion is an RS256 JWT with kid, issuer, scopes, the token URI as audience and an hour's lifetime")
    func assertion() throws {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let key = try ServiceAccountKey([
            "type": "service_account", "private_key_id": "abc123", "private_key": .string(privateKey.pemRepresentation),
            "client_email": "sa@p.iam.gserviceaccount.com", "token_uri": "https://oauth2.googleapis.com/token",
            "project_id": "p",
        ])
        let now = Date(timeIntervalSince1970: 1_700_000_000.7)
        let jwt = try JSONWebToken(try key.assertion(scopes: ["https://www.googleapis.com/auth/a", "b"], now: now))
        #expect(jwt.header == ["alg": "RS256", "typ": "JWT", "kid": "abc123"])
        #expect(jwt.claims == [
            "iss": "sa@p.iam.gserviceaccount.com", "scope": "https://www.googleapis.com/auth/a b",
            "aud": "https://oauth2.googleapis.com/token", "iat": 1_700_000_000, "exp": 1_700_003_600,
        ])
        let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature)
        #expect(privateKey.publicKey.isValidSignature(signature, for: SHA256.hash(data: jwt.signingInput),
            padding: .insecurePKCS1v1_5))
        #expect(key.projectID == "p")
        #expect("\(key)" == "service account sa@p.iam.gserviceaccount.com (key abc123)")
        #expect(!String(reflecting: key).contains("PRIVATE KEY"))
    }

    @Test("a key without a token URI is exchanged at Google's; missing fields are named")
    func fields() throws {
        let pem = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        let key = try ServiceAccountKey(["private_key_id": "k", "private_key": .string(pem), "client_email": "a@b"])
        #expect(key.tokenURI.absoluteString == "https://oauth2.googleapis.com/token")
        #expect(key.projectID == nil)
        #expect {
            try ServiceAccountKey(["private_key_id": "k", "private_key": .string(pem)])
        } throws: { "\($0)" == "the service account key has no client_email" }
    }
}
