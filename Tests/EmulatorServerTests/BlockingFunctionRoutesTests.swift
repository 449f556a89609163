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

    @Test("a function that times out or answers garbage fails the sign-up closed")
    func failClosed() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
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

    @Test("a refused sign-in saves nothing; Admin creates run no blocking function")
    func signInAndAdmin() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
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
