import CloudFunctions
import CloudFunctionsTesting
import Foundation
import Testing

/// HTTPS and blocking functions, and how request functions appear in the manifest.
@Suite("HTTPS and blocking functions")
struct RequestFunctionTests {
    static func functions() -> FunctionRegistry {
        var functions = FunctionRegistry()
        functions["hello"] = Https.onRequest(cors: .origins(["https://app.example"])) { request, response in
            guard request.method == .get else {
                response.status = .methodNotAllowed
                return
            }
            response.headerFields[.cacheControl] = "no-store"
            response.send("hello \(request.query("name") ?? "world") at \(request.path)")
        }
        functions["fails"] = Https.onRequest { _, _ in throw CocoaError(.fileReadNoPermission) }
        functions["refuses"] = Https.onRequest { _, _ in throw CallableError(.permissionDenied, "no") }
        functions["checkSignUp"] = Identity.beforeUserCreated { event in
            if event.data.email?.hasSuffix("@mailinator.com") == true {
                throw CallableError(.permissionDenied, "disposable", details: ["domain": "mailinator.com"])
            }
            if event.data.email?.hasPrefix("reserved") == true { return BeforeCreateResponse(customClaims: ["iss": "me"]) }
            if event.data.email?.hasPrefix("crash") == true { throw CocoaError(.fileNoSuchFile) }
            return BeforeCreateResponse(displayName: event.data.displayName ?? "Player", customClaims: ["role": "player"])
        }
        functions["onSignIn"] = Identity.beforeUserSignedIn { event in
            BeforeSignInResponse(sessionClaims: ["signedInWith": .string(event.signInMethod ?? "")])
        }
        return functions
    }

    @Test("onRequest reads the method, path and query and sets status, headers and body")
    func onRequest() async throws {
        let hello = try Self.functions().wrapRequest("hello")
        let response = await hello.respond(to: HTTPSRequest(method: .get, target: "/a/b?name=ada"))
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello ada at /a/b")
        // A query that is not well encoded is read as it stands.
        let unencoded = await hello.respond(to: HTTPSRequest(method: .get, target: "/?name=50% {ada}"))
        #expect(String(decoding: unencoded.body, as: UTF8.self) == "hello 50% {ada} at /")
        #expect(response.headerFields[.cacheControl] == "no-store")
        #expect(response.headerFields[.contentType] == "text/plain; charset=utf-8")
        #expect(await hello.respond(to: HTTPSRequest(method: .post)).status == .methodNotAllowed)
        var allowed = HTTPSRequest(method: .get)
        allowed.headerFields[.origin] = "https://app.example"
        #expect(await hello.respond(to: allowed).headerFields[.accessControlAllowOrigin] == "https://app.example")
        allowed.headerFields[.origin] = "https://evil.example"
        #expect(await hello.respond(to: allowed).headerFields[.accessControlAllowOrigin] == nil)
    }

    @Test("an onRequest handler's error is 500 without its text; a CallableError answers its status")
    func onRequestErrors() async throws {
        let fails = await (try Self.functions().wrapRequest("fails")).respond(to: HTTPSRequest())
        #expect(fails.status == .internalServerError)
        #expect(String(decoding: fails.body, as: UTF8.self) == "Internal Server Error\n")
        let refuses = await (try Self.functions().wrapRequest("refuses")).respond(to: HTTPSRequest())
        #expect(refuses.status == .forbidden)
        #expect(try JSONValue(parsing: refuses.body) == ["error": ["status": "PERMISSION_DENIED", "message": "no"]])
    }

    @Test("beforeUserCreated refuses with its error, or returns the fields to change")
    func beforeCreate() async throws {
        let check = try Self.functions().wrapRequest("checkSignUp")
        await #expect(throws: CallableError(.permissionDenied, "disposable", details: ["domain": "mailinator.com"])) {
            _ = try await check.block(UserRecord(uid: "u1", email: "x@mailinator.com"))
        }
        let changes = try await check.block(UserRecord(uid: "u2", email: "ada@example.com"))
        #expect(changes.user == BeforeCreateResponse(displayName: "Player", customClaims: ["role": "player"]))
        #expect(changes.sessionClaims == nil)
    }

    @Test("the blocking answer is {userRecord: {fields, updateMask}}; bad answers and failures are errors")
    func blockingWire() async throws {
        let check = try Self.functions().wrapRequest("checkSignUp")
        let claims = BlockingProtocol.claims(for: UserRecord(uid: "u", email: "ada@example.com"), event: .beforeCreate,
            project: "demo-project", audience: "https://us-central1-demo-project.cloudfunctions.net/checkSignUp",
            eventId: "e1", signInMethod: "password", now: Date())
        func call(_ claims: [String: JSONValue]) async throws -> (HTTPResponse.Status, JSONValue) {
            let body: JSONValue = ["data": ["jwt": .string(JSONWebToken.unsigned(claims))]]
            let response = await check.respond(to: HTTPSRequest(method: .post,
                headerFields: [.contentType: "application/json"], body: body.serializedData()))
            return (response.status, try JSONValue(parsing: response.body))
        }
        let (status, answer) = try await call(claims)
        #expect(status == .ok)
        #expect(answer == ["userRecord": ["displayName": "Player", "customClaims": ["role": "player"],
            "updateMask": "displayName,customClaims"]])
        var signIn = claims
        signIn["event_type"] = "beforeSignIn"
        #expect(try await call(signIn).0 == .badRequest)
        var expired = claims
        expired["exp"] = .number(Date().timeIntervalSince1970 - 10)
        #expect(try await call(expired).0 == .badRequest)
        // A token made for another function, region, project or any Cloud Run service is refused.
        for audience in ["https://us-central1-demo-project.cloudfunctions.net/otherFunction",
            "https://europe-west1-demo-project.cloudfunctions.net/checkSignUp",
            "https://us-central1-demo-project.cloudfunctions.net/checkSignUpX",
            "https://us-central1-demo-other.cloudfunctions.net/checkSignUp", "https://anything-abc-uc.a.run.app"]
        {
            var foreign = claims
            foreign["aud"] = .string(audience)
            let (status, answer) = try await call(foreign)
            #expect(status == .badRequest, "\(audience)")
            #expect(answer["error"]?["message"]?.stringValue?.contains("audience is not this function") == true)
        }
        var reserved = claims
        reserved["user_record"] = ["uid": "u", "email": "reserved@example.com"]
        let (reservedStatus, reservedAnswer) = try await call(reserved)
        #expect(reservedStatus == .badRequest)
        #expect(reservedAnswer["error"]?["message"]?.stringValue?.contains("reserved claim name(s) iss") == true)
        var crash = claims
        crash["user_record"] = ["uid": "u", "email": "crash@example.com"]
        #expect(try await call(crash) == (.internalServerError,
            ["error": ["status": "INTERNAL", "message": "An unexpected error occurred."]]))
    }

    @Test("a blocking token's audience is the function's production URL or the exact URL the call arrived at")
    func blockingAudience() throws {
        let now = Date()
        let claims = BlockingProtocol.claims(for: UserRecord(uid: "u"), event: .beforeCreate, project: "p",
            audience: "https://svc-abc-uc.a.run.app", eventId: "e", signInMethod: nil, now: now)
        func check(_ audience: JSONValue, receivedAt: String?) -> Bool {
            var claims = claims
            claims["aud"] = audience
            let kind = TokenKind.blockingCall(function: "svc", region: "us-central1", receivedAt: receivedAt)
            return (try? kind.checkClaims(claims, project: "p", now: now)) != nil
        }
        #expect(check("https://svc-abc-uc.a.run.app", receivedAt: "https://svc-abc-uc.a.run.app/"))
        #expect(check("https://svc-abc-uc.a.run.app/", receivedAt: "https://svc-abc-uc.a.run.app"))
        #expect(check("https://us-central1-p.cloudfunctions.net/svc", receivedAt: "https://svc-abc-uc.a.run.app/"))
        #expect(!check("https://other-abc-uc.a.run.app", receivedAt: "https://svc-abc-uc.a.run.app/"))
        #expect(!check("https://svc-abc-uc.a.run.app", receivedAt: nil))
        #expect(!check(["https://svc-abc-uc.a.run.app", "https://x"], receivedAt: "https://svc-abc-uc.a.run.app"))
    }

    @Test("beforeUserSignedIn sees the sign-in method and may add session claims")
    func beforeSignIn() async throws {
        let onSignIn = try Self.functions().wrapRequest("onSignIn")
        let changes = try await onSignIn.block(UserRecord(uid: "u"), signInMethod: "google.com")
        #expect(changes.sessionClaims == ["signedInWith": "google.com"])
    }

    @Test("the manifest has the SDK's httpsTrigger, callableTrigger and blockingTrigger shapes, and reads back")
    func manifest() throws {
        var functions = Self.functions()
        functions["call"] = Https.onCall(invoker: ["public"]) { (request: CallableRequest<JSONValue>) in request.data }
            .options(.region("europe-west1"), .timeout(.seconds(1800)))
        let manifest = functions.manifest()
        let json = try JSONValue(parsing: manifest.json())
        #expect(json["endpoints"]?["hello"]?["httpsTrigger"] == [:])
        #expect(json["endpoints"]?["call"]?["callableTrigger"] == ["invoker": ["public"]])
        #expect(json["endpoints"]?["call"]?["labels"] == ["deployment-callable": "true"])
        #expect(json["endpoints"]?["call"]?["timeoutSeconds"] == 1800)
        #expect(json["endpoints"]?["checkSignUp"]?["blockingTrigger"] == [
            "eventType": "providers/cloud.auth/eventTypes/user.beforeCreate",
            "options": ["idToken": false, "accessToken": false, "refreshToken": false],
        ])
        #expect(json["endpoints"]?["checkSignUp"]?["timeoutSeconds"] == 7)
        #expect(json["endpoints"]?["hello"]?["eventTrigger"] == nil)
        #expect(json["requiredAPIs"] == [["api": "identitytoolkit.googleapis.com", "reason": "Needed for auth blocking functions"]])
        let decoded = try FunctionsManifest(json: manifest.json())
        for name in functions.names {
            #expect(try decoded.endpoints[name]?.functionTrigger() == functions[name]?.trigger.withoutCodeOnlySettings)
        }
    }

    @Test("timeouts are checked against each kind's limit")
    func timeouts() {
        var functions = FunctionRegistry()
        functions["slowBlocking"] = Identity.beforeUserCreated { _ in nil }.options(.timeout(.seconds(8)))
        functions["longCall"] = Https.onCall { (r: CallableRequest<JSONValue>) in r.data }.options(.timeout(.seconds(3600)))
        #expect(throws: RegistryError.self) { try functions.validate() }
        #expect(functions["longCall"] != nil)
        #expect(functions["slowBlocking"] == nil)
    }
}

extension FunctionTrigger {
    /// The trigger as a manifest can carry it: CORS and App Check enforcement live in code only.
    var withoutCodeOnlySettings: FunctionTrigger {
        switch self {
        case .https(let trigger): .https(HTTPSTrigger(invoker: trigger.invoker))
        case .callable(let trigger): .callable(CallableTrigger(invoker: trigger.invoker))
        default: self
        }
    }
}
