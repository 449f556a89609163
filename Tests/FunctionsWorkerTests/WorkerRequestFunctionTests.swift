import CloudFunctions
import CloudFunctionsTesting
import Crypto
import CryptoExtras
import Foundation
import FunctionsWorker
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// Request functions served by the worker over HTTP, and Google-signed tokens checked with
/// keys the test makes.
@Suite("Worker: request functions and token verification")
struct WorkerRequestFunctionTests {
    /// An RSA key pair published as a JWKS, signing tokens as Google's servers do.
    struct Signer {
        let kid: String
        let key: _RSA.Signing.PrivateKey

        init(kid: String) throws {
            self.kid = kid
            key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        }

        var jwk: JSONValue {
            let primitives = try! key.publicKey.getKeyPrimitives()
            return ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": .string(kid),
                "n": .string(JSONWebToken.base64URLEncode(primitives.modulus)),
                "e": .string(JSONWebToken.base64URLEncode(primitives.publicExponent))]
        }

        func sign(_ claims: [String: JSONValue]) throws -> String {
            let header: JSONValue = ["alg": "RS256", "kid": .string(kid), "typ": "JWT"]
            let input = JSONWebToken.base64URLEncode(header.serializedData()) + "."
                + JSONWebToken.base64URLEncode(JSONValue.object(claims).serializedData())
            let signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
            return input + "." + JSONWebToken.base64URLEncode(signature.rawRepresentation)
        }
    }

    static func idClaims(project: String = "demo", expiresIn: TimeInterval = 3600) -> [String: JSONValue] {
        let now = Date().timeIntervalSince1970.rounded(.down)
        return ["iss": .string("https://securetoken.google.com/\(project)"), "aud": .string(project), "sub": "u1",
            "iat": .number(now), "exp": .number(now + expiresIn), "role": "admin"]
    }

    @Test("RS256 tokens verify against the published keys; forged, expired and foreign ones do not")
    func googleTokens() async throws {
        let signer = try Signer(kid: "k1")
        let stranger = try Signer(kid: "k1")
        let fetches = Mutex(0)
        let verifier = GoogleTokenVerifier(project: "demo") { _ in
            fetches.withLock { $0 += 1 }
            return (JSONValue.object(["keys": [signer.jwk]]).serializedData(), .seconds(3600))
        }
        let claims = try await verifier.verify(try signer.sign(Self.idClaims()), as: .idToken)
        #expect(claims["sub"] == "u1")
        #expect(claims["role"] == "admin")
        _ = try await verifier.verify(try signer.sign(Self.idClaims()), as: .idToken)
        #expect(fetches.withLock { $0 } == 1)

        await #expect(throws: TokenError("the token's signature does not verify")) {
            try await verifier.verify(try stranger.sign(Self.idClaims()), as: .idToken)
        }
        await #expect(throws: TokenError("the token has expired")) {
            try await verifier.verify(try signer.sign(Self.idClaims(expiresIn: -10)), as: .idToken)
        }
        await #expect(throws: TokenError.self) {
            try await verifier.verify(try signer.sign(Self.idClaims(project: "other")), as: .idToken)
        }
        // The emulator's unsigned tokens are refused outside it.
        await #expect(throws: TokenError.self) {
            try await verifier.verify(JSONWebToken.unsigned(Self.idClaims()), as: .idToken)
        }
        // A tampered payload keeps the signature, which then fails.
        let parts = try signer.sign(Self.idClaims()).split(separator: ".")
        var forged = Self.idClaims()
        forged["role"] = "owner"
        let tampered = "\(parts[0]).\(JSONWebToken.base64URLEncode(JSONValue.object(forged).serializedData())).\(parts[2])"
        await #expect(throws: TokenError("the token's signature does not verify")) {
            try await verifier.verify(tampered, as: .idToken)
        }
    }

    @Test("an unknown key id fetches the keys again, at most once a minute: rotated keys are picked up")
    func rotation() async throws {
        let old = try Signer(kid: "old")
        let new = try Signer(kid: "new")
        let published = Mutex([old.jwk])
        let fetches = Mutex(0)
        let clock = ManualClock(now: Date())
        let verifier = GoogleTokenVerifier(project: "demo", clock: clock) { _ in
            fetches.withLock { $0 += 1 }
            return (JSONValue.object(["keys": .array(published.withLock { $0 })]).serializedData(), .seconds(3600))
        }
        _ = try await verifier.verify(try old.sign(Self.idClaims()), as: .idToken)
        published.withLock { $0 = [new.jwk] }
        // Within a minute of the last fetch an unknown key is refused without fetching again.
        await #expect(throws: TokenError("the token's key 'new' is not one of Google's keys")) {
            try await verifier.verify(try new.sign(Self.idClaims()), as: .idToken)
        }
        #expect(fetches.withLock { $0 } == 1)
        clock.advance(by: .seconds(61))
        _ = try await verifier.verify(try new.sign(Self.idClaims()), as: .idToken)
        #expect(fetches.withLock { $0 } == 2)
    }

    @Test("when fetching the keys again fails, the keys at hand still verify, and the fetch is tried again a minute later")
    func fetchFailure() async throws {
        let signer = try Signer(kid: "k1")
        let failing = Mutex(false)
        let fetches = Mutex(0)
        let clock = ManualClock(now: Date())
        let verifier = GoogleTokenVerifier(project: "demo", clock: clock) { _ in
            fetches.withLock { $0 += 1 }
            if failing.withLock({ $0 }) { throw TokenError("unreachable") }
            return (JSONValue.object(["keys": [signer.jwk]]).serializedData(), .seconds(300))
        }
        _ = try await verifier.verify(try signer.sign(Self.idClaims()), as: .idToken)
        failing.withLock { $0 = true }
        clock.advance(by: .seconds(301))
        // Due again, the fetch fails: the key at hand verifies, and the next minute fetches nothing.
        for _ in 0..<3 { _ = try await verifier.verify(try signer.sign(Self.idClaims()), as: .idToken) }
        #expect(fetches.withLock { $0 } == 2)
        clock.advance(by: .seconds(61))
        _ = try await verifier.verify(try signer.sign(Self.idClaims()), as: .idToken)
        #expect(fetches.withLock { $0 } == 3)
        // With no keys at hand, a failed fetch refuses the token.
        let empty = GoogleTokenVerifier(project: "demo", clock: clock) { _ in throw TokenError("unreachable") }
        await #expect(throws: TokenError.self) { try await empty.verify(try signer.sign(Self.idClaims()), as: .idToken) }
    }

    static func worker(tokens: any TokenVerifier) throws -> FunctionsWorker {
        var functions = FunctionRegistry()
        functions["whoami"] = Https.onCall { (request: CallableRequest<JSONValue>) in
            try request.requireAuth().uid
        }
        functions["count"] = Https.onCall { (request: CallableRequest<Int>, response: CallableResponse) in
            for index in 1...request.data { try await response.sendChunk(index) }
            return request.data
        }
        functions["hello"] = Https.onRequest { request, response in
            response.send("\(request.method.rawValue) \(request.path) \(request.query("q") ?? "")")
        }
        return try FunctionsWorker(functions: functions, maxBodySize: 1024, tokens: tokens)
    }

    @Test("the worker serves callables with Google-verified ID tokens, streams, and plain HTTPS at any path")
    func served() async throws {
        let signer = try Signer(kid: "k1")
        let verifier = GoogleTokenVerifier(project: "demo") { _ in
            (JSONValue.object(["keys": [signer.jwk]]).serializedData(), nil)
        }
        let worker = try Self.worker(tokens: verifier)
        try await Application(router: worker.router()).test(.router) { client in
            let token = try signer.sign(Self.idClaims())
            try await client.execute(uri: "/whoami", method: .post,
                headers: [.contentType: "application/json", .authorization: "Bearer \(token)"],
                body: ByteBuffer(string: #"{"data": null}"#)) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"result":"u1"}"#)
            }
            try await client.execute(uri: "/whoami", method: .post,
                headers: [.contentType: "application/json", .authorization: "Bearer \(JSONWebToken.unsigned(Self.idClaims()))"],
                body: ByteBuffer(string: #"{"data": null}"#)) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/count", method: .post,
                headers: [.contentType: "application/json", .accept: "text/event-stream"],
                body: ByteBuffer(string: #"{"data": 2}"#)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/event-stream")
                #expect(String(buffer: response.body)
                    == "data: {\"message\":1}\n\ndata: {\"message\":2}\n\ndata: {\"result\":2}\n\n")
            }
            try await client.execute(uri: "/hello/a/b?q=1", method: .put) { response in
                #expect(String(buffer: response.body) == "PUT /a/b 1")
            }
            // A query as clients send it unencoded is read as it stands, never a crash of the worker.
            for (query, value) in [("q=50%", "50%"), (#"q={"a":1}"#, #"{"a":1}"#), ("q=%zz&q=2", "%zz"),
                                   ("q=%23x", "#x"), ("q=%E2%82%AC+1", "€+1")] {
                try await client.execute(uri: "/hello?" + query, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "GET / \(value)", "query \(query)")
                }
            }
            try await client.execute(uri: "/count", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"data": "\#(String(repeating: "x", count: 2000))"}"#)) { response in
                #expect(response.status == .contentTooLarge)
                #expect(String(buffer: response.body).contains("INVALID_ARGUMENT"))
            }
            try await client.execute(uri: "/__/health", method: .get) { response in #expect(response.status == .ok) }
        }
    }

    @Test("a request function named by FUNCTION_TARGET answers at every path, and the health and manifest routes stay the worker's")
    func requestTarget() async throws {
        var functions = FunctionRegistry()
        functions["hello"] = Https.onRequest { request, response in
            response.send("\(request.method.rawValue) \(request.path)")
        }
        let worker = try FunctionsWorker(functions: functions, target: "hello",
            tokens: EmulatorTokenVerifier(project: "demo"))
        try await Application(router: worker.router()).test(.router) { client in
            try await client.execute(uri: "/", method: .get) { #expect(String(buffer: $0.body) == "GET /") }
            try await client.execute(uri: "/a/b", method: .delete) { #expect(String(buffer: $0.body) == "DELETE /a/b") }
            try await client.execute(uri: "/__/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "ok")
            }
            try await client.execute(uri: "/__/functions.yaml", method: .get) { response in
                #expect(String(buffer: response.body).contains("httpsTrigger"))
            }
        }
    }
}
