import CloudFunctions
import Crypto
import CryptoExtras
import Foundation
import Hummingbird
import Synchronization

/// Stand-ins for Google's token endpoint, a metadata server and an API, on one local server,
/// each checking every credential it is shown as the real one would: the token endpoint takes
/// only assertions signed with the account's key (issuer, audience, scope, lifetime checked) and
/// the user's exact refresh grant; the metadata server only requests with `Metadata-Flavor:
/// Google`; the API only tokens the token endpoint or the metadata server issued.
final class GoogleStandIn: Sendable {
    struct State {
        /// Where assertions must be addressed: the token URI of the key.
        var tokenURI = ""
        /// The lifetime of the tokens issued, in seconds.
        var lifetime = 3600
        var issued: Set<String> = []
        var tokenRequests = 0
        var metadataTokenRequests = 0
        var apiRequests: [(token: String, quotaProject: String?)] = []
        /// Why assertions or requests were refused.
        var refusals: [String] = []
    }

    let key: _RSA.Signing.PrivateKey
    let keyID = "key-1"
    let clientEmail = "functions@stand-in.iam.gserviceaccount.com"
    let state = Mutex(State())

    init() throws {
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// A service account key file's JSON for this account, its token URI at `base`.
    func serviceAccountKey(base: URL, projectID: String? = "key-project") -> JSONValue {
        var key: [String: JSONValue] = [
            "type": "service_account", "private_key_id": .string(keyID), "private_key": .string(self.key.pemRepresentation),
            "client_email": .string(clientEmail), "client_id": "1234", "token_uri": .string(base.absoluteString + "/token"),
        ]
        key["project_id"] = projectID.map(JSONValue.string)
        return .object(key)
    }

    /// Whether a request carries a token this stand-in issued.
    func accepts(_ request: Request) -> Bool {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return false }
        let token = String(header.dropFirst(7))
        return state.withLock { state in
            guard state.issued.contains(token) else { return false }
            state.apiRequests.append((token, request.headers[HTTPField.Name("x-goog-user-project")!]))
            return true
        }
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("token") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
            let form = Dictionary((URLComponents(string: "?" + body)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }
            let refusal: String? = switch form["grant_type"] {
            case "urn:ietf:params:oauth:grant-type:jwt-bearer": self.check(assertion: form["assertion"] ?? "")
            case "refresh_token":
                form["client_id"] == "user-client" && form["client_secret"] == "user-secret"
                    && form["refresh_token"] == "user-refresh" ? nil : "a refresh grant with wrong fields"
            default: "an unknown grant"
            }
            return self.issue(refusal: refusal, counting: \.tokenRequests)
        }
        router.get("computeMetadata/v1/project/project-id") { request, _ in
            guard request.headers[HTTPField.Name("Metadata-Flavor")!] == "Google" else { return Response(status: .forbidden) }
            return Response(status: .ok, headers: [HTTPField.Name("Metadata-Flavor")!: "Google"],
                body: .init(byteBuffer: ByteBuffer(string: "metadata-project")))
        }
        router.get("computeMetadata/v1/instance/service-accounts/default/token") { request, _ in
            let scopes = request.uri.queryParameters.get("scopes") ?? ""
            let refusal: String? = request.headers[HTTPField.Name("Metadata-Flavor")!] != "Google"
                ? "no Metadata-Flavor" : scopes.contains("firebase.messaging") ? nil : "scopes \(scopes)"
            var response = self.issue(refusal: refusal, counting: \.metadataTokenRequests)
            response.headers[HTTPField.Name("Metadata-Flavor")!] = "Google"
            return response
        }
        router.on("api/**", method: .post) { request, _ in
            self.accepts(request) ? Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "{\"ok\": true}")))
                : Response(status: .unauthorized, body: .init(byteBuffer: ByteBuffer(string: "{\"error\": {\"message\": \"bad token\"}}")))
        }
        return router
    }

    /// A token, or 400 `invalid_grant` with the refusal.
    private func issue(refusal: String?, counting counter: WritableKeyPath<State, Int>) -> Response {
        let token = "ya29.\(UUID().uuidString)"
        let lifetime = state.withLock { state in
            state[keyPath: counter] += 1
            if let refusal { state.refusals.append(refusal) } else { state.issued.insert(token) }
            return state.lifetime
        }
        let body: JSONValue = refusal.map { ["error": "invalid_grant", "error_description": .string($0)] }
            ?? ["access_token": .string(token), "expires_in": .number(Double(lifetime)), "token_type": "Bearer"]
        return Response(status: refusal == nil ? .ok : .badRequest, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: body.serializedData())))
    }

    /// Why an assertion is refused; `nil` when it is good.
    private func check(assertion: String) -> String? {
        guard let jwt = try? JSONWebToken(assertion) else { return "not a JWT" }
        guard jwt.header["alg"] == "RS256", jwt.header["typ"] == "JWT", jwt.header["kid"]?.stringValue == keyID else {
            return "header \(JSONValue.object(jwt.header).serialized())"
        }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature)
        guard key.publicKey.isValidSignature(signature, for: SHA256.hash(data: jwt.signingInput), padding: .insecurePKCS1v1_5)
        else { return "a bad signature" }
        let claims = jwt.claims
        let tokenURI = state.withLock { $0.tokenURI }
        guard claims["iss"]?.stringValue == clientEmail else { return "issuer \(claims["iss"]?.serialized() ?? "none")" }
        guard claims["aud"]?.stringValue == tokenURI else { return "audience \(claims["aud"]?.serialized() ?? "none")" }
        let scopes = (claims["scope"]?.stringValue ?? "").split(separator: " ")
        guard scopes.contains("https://www.googleapis.com/auth/firebase.messaging") else { return "scopes \(scopes)" }
        guard let issued = claims["iat"]?.numberValue, let expiry = claims["exp"]?.numberValue,
            abs(issued - Date().timeIntervalSince1970) < 60, expiry > issued, expiry - issued <= 3600
        else { return "lifetime iat \(claims["iat"]?.serialized() ?? "none") exp \(claims["exp"]?.serialized() ?? "none")" }
        return nil
    }
}
