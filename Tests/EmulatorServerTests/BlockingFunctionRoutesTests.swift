import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Blocking functions on the Auth routes, deployed in process: client sign-ups and sign-ins
/// run them; Admin creates do not.
@Suite("Blocking functions on Auth routes")
struct BlockingFunctionRoutesTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    static func functions(timeout: Duration = .seconds(7)) -> FunctionRegistry {
        var functions = FunctionRegistry()
        functions["checkSignUp"] = Identity.beforeUserCreated { event in
            let email = event.data.email ?? ""
            if email.hasSuffix("@mailinator.com") { throw CallableError(.permissionDenied, "disposable e-mail") }
            if email.hasPrefix("slow") { try await Task.sleep(for: .seconds(30)) }
            if email.hasPrefix("garbage") { return BeforeCreateResponse(customClaims: ["exp": 1]) }
            return BeforeCreateResponse(displayName: "Player", customClaims: ["role": "player"])
        }.options(.timeout(timeout))
        functions["onSignIn"] = Identity.beforeUserSignedIn { event in
            if event.data.email?.hasPrefix("banned") == true { throw CallableError(.permissionDenied, "banned") }
            return BeforeSignInResponse(sessionClaims: ["via": .string(event.signInMethod ?? "")])
        }
        return functions
    }

    static func claims(_ idToken: JSONValue?) throws -> JSONValue {
        let token = try #require(idToken?.stringValue)
        let payload = try #require(JSONWebToken.base64URLDecode(token.split(separator: ".")[1]))
        return try JSONValue(parsing: payload)
    }

    static func call(_ client: some TestClientProtocol, _ path: String, _ body: JSONValue, admin: Bool = false)
        async throws -> (HTTPResponse.Status, JSONValue)
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        if admin { headers[.authorization] = "Bearer owner" }
        return try await client.execute(uri: "\(v1)/\(path)", method: .post, headers: headers,
            body: ByteBuffer(bytes: body.serializedData())) { ($0.status, try JSONValue(parsing: Data($0.body.readableBytesView))) }
    }

    @Test("a refused sign-up fails with BLOCKING_FUNCTION_ERROR_RESPONSE and stores nothing; an allowed one carries the claims")
    func signUp() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await emulator.withRunning {
            try await emulator.deploy(Self.functions())
            try await Application(router: EmulatorServer(emulator: emulator).router()).test(.router) { client in
                let (status, refused) = try await Self.call(client, "accounts:signUp?key=k",
                    ["email": "x@mailinator.com", "password": "secret1"])
                #expect(status == .badRequest)
                let message = try #require(refused["error"]?["message"]?.stringValue)
                #expect(message.hasPrefix("BLOCKING_FUNCTION_ERROR_RESPONSE : ((HTTP request to https://us-central1-demo.cloudfunctions.net/checkSignUp returned HTTP error 403: "))
                #expect(message.contains("disposable e-mail"))
                #expect(try emulator.auth.listUsers(maxResults: 10, pageToken: nil).users.isEmpty)

                let (okStatus, allowed) = try await Self.call(client, "accounts:signUp?key=k",
                    ["email": "ada@example.com", "password": "secret1"])
                #expect(okStatus == .ok)
                let claims = try Self.claims(allowed["idToken"])
                #expect(claims["role"] == "player")
                #expect(claims["name"] == "Player")
                #expect(claims["via"] == "password")
                let (_, signIn) = try await Self.call(client, "accounts:signInWithPassword?key=k",
                    ["email": "ada@example.com", "password": "secret1"])
                #expect(try Self.claims(signIn["idToken"])["role"] == "player")
                #expect(try Self.claims(signIn["idToken"])["via"] == "password")
            }
        }
    }

    @Test("a function that times out or answers garbage fails the sign-up closed")
    func failClosed() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await emulator.withRunning {
            try await emulator.deploy(Self.functions(timeout: .seconds(1)))
            try await Application(router: EmulatorServer(emulator: emulator).router()).test(.router) { client in
                let (slowStatus, slow) = try await Self.call(client, "accounts:signUp?key=k",
                    ["email": "slow@example.com", "password": "secret1"])
                #expect(slowStatus == .badRequest)
                #expect(slow["error"]?["message"]?.stringValue?.contains("deadline") == true
                    || slow["error"]?["message"]?.stringValue?.contains("did not answer") == true)
                let (garbageStatus, garbage) = try await Self.call(client, "accounts:signUp?key=k",
                    ["email": "garbage@example.com", "password": "secret1"])
                #expect(garbageStatus == .badRequest)
                #expect(garbage["error"]?["message"]?.stringValue?.hasPrefix("BLOCKING_FUNCTION_ERROR_RESPONSE") == true)
                #expect(try emulator.auth.listUsers(maxResults: 10, pageToken: nil).users.isEmpty)
            }
        }
    }

    @Test("a refused sign-in saves nothing; Admin creates run no blocking function")
    func signInAndAdmin() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await emulator.withRunning {
            try await emulator.deploy(Self.functions())
            try await Application(router: EmulatorServer(emulator: emulator).router()).test(.router) { client in
                let (adminStatus, created) = try await Self.call(client, "projects/demo/accounts",
                    ["email": "banned@mailinator.com", "password": "secret1"], admin: true)
                #expect(adminStatus == .ok)
                let uid = try #require(created["localId"]?.stringValue)
                let (status, refused) = try await Self.call(client, "accounts:signInWithPassword?key=k",
                    ["email": "banned@mailinator.com", "password": "secret1"])
                #expect(status == .badRequest)
                #expect(refused["error"]?["message"]?.stringValue?.contains("banned") == true)
                let stored = try #require(try emulator.auth.listUsers(maxResults: 10, pageToken: nil).users.first)
                #expect(stored.localId == uid)
                #expect(stored.lastLoginAt == nil)
                #expect(stored.customClaims.isEmpty)
            }
        }
    }

    static func customToken(_ claims: [String: JSONValue]) -> String {
        var payload = claims
        payload["aud"] = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
        payload["iss"] = "firebase-adminsdk@demo.iam.gserviceaccount.com"
        payload["iat"] = .number(Date().timeIntervalSince1970.rounded(.down))
        payload["exp"] = claims["exp"] ?? .number(Date().timeIntervalSince1970.rounded(.down) + 3600)
        return JSONWebToken.unsigned(payload)
    }

    @Test("custom-token sign-ins run the blocking functions, create the user once, and carry the developer claims")
    func customTokens() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await emulator.withRunning {
            try await emulator.deploy(Self.functions())
            try await Application(router: EmulatorServer(emulator: emulator).router()).test(.router) { client in
                let token = Self.customToken(["uid": "u-custom", "claims": ["tier": "gold"]])
                let (status, first) = try await Self.call(client, "accounts:signInWithCustomToken?key=k",
                    ["token": .string(token), "returnSecureToken": true])
                #expect(status == .ok)
                #expect(first["isNewUser"] == true)
                #expect(first["kind"] == "identitytoolkit#VerifyCustomTokenResponse")
                let claims = try Self.claims(first["idToken"])
                #expect(claims["sub"] == "u-custom")
                #expect(claims["role"] == "player")
                #expect(claims["tier"] == "gold")
                #expect(claims["via"] == "custom")
                #expect(claims["firebase"]?["sign_in_provider"] == "custom")
                // A refreshed ID token keeps the session's claims.
                let refreshed = try await client.execute(uri: "/securetoken.googleapis.com/v1/token?key=k", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "grant_type=refresh_token&refresh_token=\(first["refreshToken"]?.stringValue ?? "")")
                ) { try JSONValue(parsing: Data($0.body.readableBytesView)) }
                let refreshedClaims = try Self.claims(refreshed["id_token"])
                #expect(refreshedClaims["tier"] == "gold")
                #expect(refreshedClaims["via"] == "custom")
                #expect(refreshedClaims["role"] == "player")
                let (_, second) = try await Self.call(client, "accounts:signInWithCustomToken?key=k", ["token": .string(token)])
                #expect(second["isNewUser"] == false)
                #expect(try Self.claims(second["idToken"])["role"] == "player")
                #expect(try emulator.auth.listUsers(maxResults: 10, pageToken: nil).users.map(\.localId) == ["u-custom"])

                for (body, message) in [
                    (JSONValue.object([:]), "MISSING_CUSTOM_TOKEN"),
                    (["token": "not-a-token"], "INVALID_CUSTOM_TOKEN : the token is not a JWT (three parts separated by '.')"),
                    (["token": .string(JSONWebToken.unsigned(["uid": "x", "aud": "elsewhere"]))],
                        "INVALID_CUSTOM_TOKEN : the token's audience is not https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"),
                    (["token": .string(Self.customToken(["uid": "x", "exp": 1]))], "INVALID_CUSTOM_TOKEN : the token has expired"),
                    (["token": .string(Self.customToken(["uid": "x", "claims": ["sub": "y"]]))],
                        "INVALID_CUSTOM_TOKEN : the claim 'sub' is reserved"),
                    // 65 emoji: 65 characters but 130 UTF-16 units, more than an ID token's uid may have.
                    (["token": .string(Self.customToken(["uid": .string(String(repeating: "😀", count: 65))]))],
                        "INVALID_CUSTOM_TOKEN : the token's uid must be a string of 1 to 128 characters"),
                ] {
                    let (badStatus, bad) = try await Self.call(client, "accounts:signInWithCustomToken?key=k", body)
                    #expect(badStatus == .badRequest)
                    #expect(bad["error"]?["message"]?.stringValue == message)
                }
            }
        }
    }

    @Test("two first sign-ins with the same new IdP account at once make one user, and both sign in to it")
    func concurrentFirstIdpSignIns() async throws {
        /// Lets its callers go on once two of them are waiting: both sign-ins are then past the
        /// check for an existing user, inside the blocking function.
        actor Rendezvous {
            var waiting: [CheckedContinuation<Void, Never>] = []
            func arrive() async {
                await withCheckedContinuation { continuation in
                    waiting.append(continuation)
                    if waiting.count == 2 {
                        for waiter in waiting { waiter.resume() }
                        waiting = []
                    }
                }
            }
        }
        let rendezvous = Rendezvous()
        var functions = FunctionRegistry()
        functions["pair"] = Identity.beforeUserCreated { _ in
            await rendezvous.arrive()
            return BeforeCreateResponse()
        }
        let emulator = try Emulator(project: "demo", directory: nil)
        try await emulator.withRunning {
            try await emulator.deploy(functions)
            try await Application(router: EmulatorServer(emulator: emulator).router()).test(.router) { client in
                @Sendable func signIn() async throws -> (HTTPResponse.Status, JSONValue) {
                    let postBody = "id_token=\(JSONWebToken.unsigned(["sub": "g-7", "name": "Twin", "email": "twin@example.com"]))&providerId=google.com"
                    return try await Self.call(client, "accounts:signInWithIdp?key=k",
                        ["postBody": .string(postBody), "requestUri": "http://localhost", "returnSecureToken": true])
                }
                async let first = signIn()
                async let second = signIn()
                let answers = try await [first, second]
                #expect(answers.map(\.0) == [.ok, .ok], "\(answers)")
                #expect(answers[0].1["localId"] != nil && answers[0].1["localId"] == answers[1].1["localId"])
                #expect(Set(answers.compactMap { $0.1["isNewUser"]?.boolValue }) == [true, false])
                #expect(answers.allSatisfy { $0.1["idToken"]?.stringValue != nil })
                let users = try emulator.auth.listUsers(maxResults: 10, pageToken: nil).users
                #expect(users.count == 1)
                #expect(users.first?.providerData.map(\.rawId) == ["g-7"])
            }
        }
    }

    @Test("IdP sign-ins run the blocking functions: a refused one saves nothing, an allowed one links the provider")
    func idpSignIns() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await emulator.withRunning {
            try await emulator.deploy(Self.functions())
            try await Application(router: EmulatorServer(emulator: emulator).router()).test(.router) { client in
                func signIn(_ profile: JSONValue, provider: String = "google.com") async throws -> (HTTPResponse.Status, JSONValue) {
                    let idToken = JSONWebToken.unsigned(profile.objectValue ?? [:])
                    let postBody = "id_token=\(idToken)&providerId=\(provider)"
                    return try await Self.call(client, "accounts:signInWithIdp?key=k",
                        ["postBody": .string(postBody), "requestUri": "http://localhost", "returnSecureToken": true,
                            "returnIdpCredential": true])
                }
                let (refusedStatus, refused) = try await signIn(["sub": "g-1", "email": "x@mailinator.com"])
                #expect(refusedStatus == .badRequest)
                #expect(refused["error"]?["message"]?.stringValue?.hasPrefix("BLOCKING_FUNCTION_ERROR_RESPONSE") == true)
                #expect(try emulator.auth.listUsers(maxResults: 10, pageToken: nil).users.isEmpty)

                let profile: JSONValue = ["sub": "g-2", "email": "Grace@Example.com", "email_verified": true, "name": "Grace",
                    "picture": "https://example.com/g.png"]
                let (status, first) = try await signIn(profile)
                #expect(status == .ok)
                #expect(first["isNewUser"] == true)
                #expect(first["federatedId"] == "g-2")
                #expect(first["email"] == "grace@example.com")
                #expect(first["oauthIdToken"]?.stringValue != nil)
                let claims = try Self.claims(first["idToken"])
                #expect(claims["role"] == "player")
                #expect(claims["via"] == "google.com")
                #expect(claims["firebase"]?["identities"]?["google.com"] == ["g-2"])
                let (_, second) = try await signIn(profile)
                #expect(second["isNewUser"] == false)
                #expect(second["localId"] == first["localId"])

                // Another provider with the same email: the client must link instead.
                let (_, apple) = try await signIn(["sub": "a-9", "email": "grace@example.com"], provider: "apple.com")
                #expect(apple["needConfirmation"] == true)
                #expect(apple["idToken"] == nil)
                #expect(try emulator.auth.listUsers(maxResults: 10, pageToken: nil).users.count == 1)

                let (noSub, noSubBody) = try await signIn(["email": "a@example.com"])
                #expect(noSub == .badRequest)
                #expect(noSubBody["error"]?["message"] == "INVALID_IDP_RESPONSE : the id_token has no sub")
                let (missingURI, missingBody) = try await Self.call(client, "accounts:signInWithIdp?key=k",
                    ["postBody": "id_token=x&providerId=google.com"])
                #expect(missingURI == .badRequest)
                #expect(missingBody["error"]?["message"] == "MISSING_REQUEST_URI")
            }
        }
    }
}
