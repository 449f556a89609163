import CloudFunctions
import CloudFunctionsTesting
import Foundation
import Logging
import Testing

/// Callable functions through their wire protocol, as the client SDKs send and read it.
@Suite("Callable functions")
struct CallableFunctionTests {
    struct Score: Codable, Sendable, Equatable {
        var playerName: String
        var score: Double
    }

    static func functions() -> FunctionRegistry {
        var functions = FunctionRegistry()
        functions["submit"] = Https.onCall { (request: CallableRequest<Score>) in
            let caller = try request.requireAuth()
            guard request.data.score >= 0 else {
                throw CallableError(.invalidArgument, "score must not be negative", details: ["score": .number(request.data.score)])
            }
            return ["uid": caller.uid, "role": request.auth?.token["role"]?.stringValue ?? "", "score": "\(Int(request.data.score))"]
        }
        functions["echo"] = Https.onCall { (request: CallableRequest<JSONValue>) in request.data }
        functions["crash"] = Https.onCall { (_: CallableRequest<JSONValue>) -> String in
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "/secret/path"])
        }
        functions["guarded"] = Https.onCall(enforceAppCheck: true) { (request: CallableRequest<JSONValue>) in
            request.app?.appId ?? ""
        }
        functions["count"] = Https.onCall { (request: CallableRequest<Int>, response: CallableResponse) in
            for index in 1...request.data { try await response.sendChunk(index) }
            return "counted to \(request.data)"
        }
        return functions
    }

    static func wrapped(_ name: String) throws -> WrappedRequestFunction {
        try functions().wrapRequest(name, project: "demo")
    }

    static func json(_ response: HTTPSResponse) -> JSONValue { (try? JSONValue(parsing: response.body)) ?? .null }

    @Test("a call returns its result; the caller's uid and claims come from the ID token")
    func result() async throws {
        let submit = try Self.wrapped("submit")
        let result = try await submit.call(Score(playerName: "ada", score: 42), auth: AuthData(uid: "u1", token: ["role": "admin"]))
        #expect(result == ["uid": "u1", "role": "admin", "score": "42"])
        let response = await submit.respond(to: submit.callableRequest(Score(playerName: "ada", score: 1), auth: AuthData(uid: "u1")))
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentType] == "application/json; charset=utf-8")
        #expect(Self.json(response)["result"]?["uid"] == "u1")
    }

    @Test("errors answer {error: {status, message, details}} with the code's HTTP status")
    func errors() async throws {
        let submit = try Self.wrapped("submit")
        let signedOut = await submit.respond(to: submit.callableRequest(Score(playerName: "ada", score: 1)))
        #expect(signedOut.status == .unauthorized)
        #expect(Self.json(signedOut)["error"]?["status"] == "UNAUTHENTICATED")
        let negative = await submit.respond(to: submit.callableRequest(Score(playerName: "ada", score: -5), auth: AuthData(uid: "u")))
        #expect(negative.status == .badRequest)
        #expect(Self.json(negative) == ["error": ["status": "INVALID_ARGUMENT", "message": "score must not be negative",
            "details": ["score": -5]]])
        await #expect(throws: CallableError(.invalidArgument, "score must not be negative", details: ["score": -5])) {
            _ = try await submit.call(Score(playerName: "ada", score: -5), auth: AuthData(uid: "u"))
        }
    }

    @Test("every code maps to its status name and HTTP status", arguments: [
        (CallableError.Code.cancelled, "CANCELLED", 499), (.unknown, "UNKNOWN", 500),
        (.invalidArgument, "INVALID_ARGUMENT", 400), (.deadlineExceeded, "DEADLINE_EXCEEDED", 504),
        (.notFound, "NOT_FOUND", 404), (.alreadyExists, "ALREADY_EXISTS", 409),
        (.permissionDenied, "PERMISSION_DENIED", 403), (.unauthenticated, "UNAUTHENTICATED", 401),
        (.resourceExhausted, "RESOURCE_EXHAUSTED", 429), (.failedPrecondition, "FAILED_PRECONDITION", 400),
        (.aborted, "ABORTED", 409), (.outOfRange, "OUT_OF_RANGE", 400), (.unimplemented, "UNIMPLEMENTED", 501),
        (.internal, "INTERNAL", 500), (.unavailable, "UNAVAILABLE", 503), (.dataLoss, "DATA_LOSS", 500),
    ])
    func codes(code: CallableError.Code, status: String, http: Int) {
        #expect(code.status == status)
        #expect(code.httpStatus.code == http)
        #expect(CallableError.Code(status: status) == code)
    }

    @Test("a handler's own error is 500 INTERNAL and shows nothing of it")
    func hidden() async throws {
        let crash = try Self.wrapped("crash")
        let response = await crash.respond(to: crash.callableRequest(JSONValue.null))
        #expect(response.status == .internalServerError)
        #expect(Self.json(response) == ["error": ["status": "INTERNAL", "message": "INTERNAL"]])
        #expect(!String(decoding: response.body, as: UTF8.self).contains("secret"))
    }

    @Test("malformed calls are 400 INVALID_ARGUMENT Bad Request", arguments: [
        ("POST", "application/json", #"not json"#),
        ("POST", "application/json", #"{"score": 1}"#),
        ("POST", "application/json", #"{"data": 1, "extra": true}"#),
        ("POST", "text/plain", #"{"data": 1}"#),
        ("PUT", "application/json", #"{"data": 1}"#),
        ("POST", "application/json", #"[1]"#),
    ])
    func malformed(method: String, contentType: String, body: String) async throws {
        let echo = try Self.wrapped("echo")
        let response = await echo.respond(to: HTTPSRequest(method: HTTPRequest.Method(method)!,
            headerFields: [.contentType: contentType], body: Data(body.utf8)))
        #expect(response.status == .badRequest)
        #expect(Self.json(response) == ["error": ["status": "INVALID_ARGUMENT", "message": "Bad Request"]])
    }

    @Test("data that does not fit the handler's type is INVALID_ARGUMENT naming the field")
    func typeMismatch() async throws {
        let submit = try Self.wrapped("submit")
        let response = await submit.respond(to: submit.callableRequest(["playerName": "ada"] as JSONValue, auth: AuthData(uid: "u")))
        #expect(response.status == .badRequest)
        #expect(Self.json(response)["error"]?["message"]?.stringValue?.contains("data.score") == true)
    }

    @Test("content type parameters are ignored and Int64Value wrappers unwrapped")
    func wireDetails() async throws {
        let echo = try Self.wrapped("echo")
        let body = #"{"data": {"big": {"@type": "type.googleapis.com/google.protobuf.Int64Value", "value": "9007199254740"}, "list": [1]}}"#
        let response = await echo.respond(to: HTTPSRequest(method: .post,
            headerFields: [.contentType: "Application/JSON; charset=utf-8"], body: Data(body.utf8)))
        #expect(Self.json(response) == ["result": ["big": 9_007_199_254_740, "list": [1]]])
        let unknown = #"{"data": {"@type": "type.googleapis.com/google.protobuf.Other", "value": "1"}}"#
        let refused = await echo.respond(to: HTTPSRequest(method: .post, headerFields: [.contentType: "application/json"],
            body: Data(unknown.utf8)))
        #expect(refused.status == .internalServerError)
    }

    @Test("an expired, foreign or malformed ID token is 401; a bad App Check token only where enforced")
    func tokens() async throws {
        let echo = try Self.wrapped("echo")
        let past = Date().timeIntervalSince1970 - 60
        for auth in [
            AuthData(uid: "u", token: ["exp": .number(past)]),
            AuthData(uid: "u", rawToken: "not-a-jwt"),
            AuthData(uid: "u", rawToken: JSONWebToken.unsigned(["iss": "https://securetoken.google.com/other",
                "aud": "other", "sub": "u", "exp": .number(past + 7200)])),
        ] {
            let response = await echo.respond(to: echo.callableRequest(JSONValue.null, auth: auth))
            #expect(response.status == .unauthorized)
            #expect(Self.json(response) == ["error": ["status": "UNAUTHENTICATED", "message": "Unauthenticated"]])
        }
        let guarded = try Self.wrapped("guarded")
        let without = await guarded.respond(to: guarded.callableRequest(JSONValue.null))
        #expect(without.status == .unauthorized)
        #expect(try await guarded.call(JSONValue.null, app: AppCheckData(appId: "1:123:web:abc")) == "1:123:web:abc")
    }

    @Test("a streaming call sends each chunk, then the result; errors arrive in the stream under 200")
    func streaming() async throws {
        let count = try Self.wrapped("count")
        let (chunks, result) = try await count.stream(3)
        #expect(chunks == [1, 2, 3])
        #expect(result == "counted to 3")
        let response = await count.respond(to: count.callableRequest(3, streaming: true))
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentType] == "text/event-stream")
        let text = String(decoding: try await response.collectBody(), as: UTF8.self)
        #expect(text == "data: {\"message\":1}\n\ndata: {\"message\":2}\n\ndata: {\"message\":3}\n\ndata: {\"result\":\"counted to 3\"}\n\n")
        let bad = await count.respond(to: count.callableRequest("three", streaming: true))
        #expect(bad.status == .ok)
        let error = String(decoding: try await bad.collectBody(), as: UTF8.self)
        #expect(error.hasPrefix("data: {\"error\":{\"message\":\"the data does not fit Int"))
        // Without streaming the same function answers only its result.
        #expect(try await count.call(2) == "counted to 2")
    }

    @Test("browsers get CORS: a preflight answers 204, answers carry the origin")
    func cors() async throws {
        let echo = try Self.wrapped("echo")
        let preflight = await echo.respond(to: HTTPSRequest(method: .options, headerFields: [
            .origin: "https://app.example", .accessControlRequestHeaders: "content-type,authorization",
        ]))
        #expect(preflight.status == .noContent)
        #expect(preflight.headerFields[.accessControlAllowOrigin] == "https://app.example")
        #expect(preflight.headerFields[.accessControlAllowHeaders] == "content-type,authorization")
        var request = echo.callableRequest(1)
        request.headerFields[.origin] = "https://app.example"
        #expect(await echo.respond(to: request).headerFields[.accessControlAllowOrigin] == "https://app.example")
    }
}
