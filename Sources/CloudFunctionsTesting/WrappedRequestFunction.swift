import CloudFunctions
import Foundation
import Logging

/// A registered HTTPS, callable or blocking function made callable in process, through the
/// same wire protocol its clients use: a call is encoded as the client SDK would send it
/// (the caller's ID token included, unsigned as the Auth emulator issues them), and the
/// answer is decoded as the client would read it.
///
/// ```swift
/// let submitScore = try functions.wrapRequest("submitScore", admin: emulator.admin)
/// let result = try await submitScore.call(["playerName": "ada", "score": 42], auth: AuthData(uid: "u1"))
/// let refused = await #expect(throws: CallableError.self) { try await submitScore.call([:]) }
/// ```
public struct WrappedRequestFunction: Sendable {
    /// The function's name.
    public let name: String
    /// The function.
    public let function: CloudFunction
    /// The Admin clients its context gets.
    public let admin: AdminClients
    /// The project tokens are issued for.
    public let project: String
    /// Where the function reads its params and its declared secrets, as a deploy would give them.
    public let environment: [String: String]

    /// Sends a raw request, as the worker would hand it over.
    public func respond(to request: HTTPSRequest) async -> HTTPSResponse {
        let context = RequestContext(functionName: name, admin: admin, tokens: EmulatorTokenVerifier(project: project),
            region: function.options.deploymentRegion,
            paramValues: ParamValues(environment: environment, for: function, named: name),
            logger: Logger(label: "cloud-functions.test"))
        return await function.respond(to: request, context: context)
    }

    /// Dispatches a task to a task-queue function as its queue would: `data` as the task's
    /// `data`, `task` as the `X-CloudTasks-*` headers.
    ///
    /// - Throws: the ``CallableError`` the function answered with (the queue would retry).
    public func dispatch(_ data: some Encodable, task: TaskContext? = nil) async throws {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        for (name, value) in (task ?? TaskContext(queueName: name, id: "test-task")).dispatchHeaders {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        let body = JSONValue.object(["data": try JSONValue(encoding: data)]).serializedData()
        let response = await respond(to: HTTPSRequest(method: .post, target: "/", headerFields: fields, body: body))
        guard response.status.kind == .successful else {
            let reply = (try? JSONValue(parsing: await (try? response.collectBody()) ?? Data())) ?? .null
            throw Self.callableError(reply["error"] ?? ["status": "UNKNOWN", "message": .string("HTTP \(response.status.code)")])
        }
    }

    /// Calls a callable with `data`, as `auth` (signed out when `nil`), and returns its result.
    ///
    /// - Throws: the ``CallableError`` the function answered with.
    public func call<Output: Decodable>(
        _ data: some Encodable,
        auth: AuthData? = nil,
        app: AppCheckData? = nil,
        as type: Output.Type = JSONValue.self
    ) async throws -> Output {
        let answer = await respond(to: callableRequest(data, auth: auth, app: app, streaming: false))
        let body = (try? JSONValue(parsing: answer.body)) ?? .null
        if let error = body["error"] { throw Self.callableError(error) }
        return try (body["result"] ?? .null).decode(as: Output.self)
    }

    /// Calls a streaming callable and returns the chunks it sent and its result.
    ///
    /// - Throws: the ``CallableError`` the function ended with.
    public func stream(
        _ data: some Encodable,
        auth: AuthData? = nil,
        app: AppCheckData? = nil
    ) async throws -> (chunks: [JSONValue], result: JSONValue) {
        let answer = await respond(to: callableRequest(data, auth: auth, app: app, streaming: true))
        let text = String(decoding: try await answer.collectBody(), as: UTF8.self)
        var chunks: [JSONValue] = []
        for line in text.split(separator: "\n") where line.hasPrefix("data: ") {
            let event = try JSONValue(parsing: String(line.dropFirst("data: ".count)))
            if let chunk = event["message"] { chunks.append(chunk) }
            if let result = event["result"] { return (chunks, result) }
            if let error = event["error"] { throw Self.callableError(error) }
        }
        throw WrapError(message: "the stream ended without a result: \(text)")
    }

    /// Runs a blocking function for `user`, as Authentication calls it, and returns the
    /// changes it asked for (all `nil` when none).
    ///
    /// - Throws: the ``CallableError`` the function refused with.
    public func block(
        _ user: UserRecord,
        signInMethod: String = "password",
        ipAddress: String? = nil,
        userAgent: String? = nil
    ) async throws -> BeforeSignInResponse {
        guard case .blocking(let trigger) = function.trigger else {
            throw WrapError(message: "'\(name)' is not a blocking function")
        }
        let claims = BlockingProtocol.claims(
            for: user, event: trigger.event, project: project,
            audience: BlockingProtocol.audience(project: project, region: function.options.deploymentRegion,
                function: name),
            eventId: UUID().uuidString,
            signInMethod: signInMethod, now: Date(), ipAddress: ipAddress, userAgent: userAgent
        )
        let body: JSONValue = ["data": ["jwt": .string(JSONWebToken.unsigned(claims))]]
        let answer = await respond(to: HTTPSRequest(method: .post, headerFields: [.contentType: "application/json"],
            body: body.serializedData()))
        let reply = (try? JSONValue(parsing: answer.body)) ?? .null
        if let error = reply["error"] { throw Self.callableError(error) }
        let record = reply["userRecord"]?.objectValue ?? [:]
        return BeforeSignInResponse(
            displayName: record["displayName"]?.stringValue,
            photoURL: record["photoURL"]?.stringValue,
            disabled: record["disabled"]?.boolValue,
            emailVerified: record["emailVerified"]?.boolValue,
            customClaims: record["customClaims"]?.objectValue,
            sessionClaims: record["sessionClaims"]?.objectValue
        )
    }

    /// A callable request as the web SDK sends it.
    public func callableRequest(
        _ data: some Encodable,
        auth: AuthData? = nil,
        app: AppCheckData? = nil,
        streaming: Bool = false
    ) -> HTTPSRequest {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let auth {
            var claims = auth.token
            claims["iss"] = .string("https://securetoken.google.com/\(project)")
            claims["aud"] = .string(project)
            claims["sub"] = .string(auth.uid)
            claims["user_id"] = .string(auth.uid)
            claims["iat"] = claims["iat"] ?? .number(floor(Date().timeIntervalSince1970))
            claims["exp"] = claims["exp"] ?? .number(floor(Date().timeIntervalSince1970) + 3600)
            headers[.authorization] = "Bearer " + (auth.rawToken.isEmpty ? JSONWebToken.unsigned(claims) : auth.rawToken)
        }
        if let app {
            var claims = app.token
            claims["iss"] = .string("https://firebaseappcheck.googleapis.com/\(project)")
            claims["aud"] = .array([.string("projects/\(project)")])
            claims["sub"] = .string(app.appId)
            claims["exp"] = claims["exp"] ?? .number(floor(Date().timeIntervalSince1970) + 3600)
            headers[CallableProtocol.appCheckHeader] = JSONWebToken.unsigned(claims)
        }
        if streaming { headers[.accept] = "text/event-stream" }
        let payload = (try? JSONValue(encoding: data)) ?? .null
        return HTTPSRequest(method: .post, headerFields: headers, body: JSONValue.object(["data": payload]).serializedData())
    }

    static func callableError(_ wire: JSONValue) -> CallableError {
        CallableError(
            CallableError.Code(status: wire["status"]?.stringValue ?? "") ?? .unknown,
            wire["message"]?.stringValue ?? "",
            details: wire["details"]
        )
    }
}

extension FunctionRegistry {
    /// Wraps a registered HTTPS, callable, blocking or task-queue function for direct calls in tests.
    ///
    /// - Throws: ``WrapError`` when no function has that name, or it is an event function.
    public func wrapRequest(
        _ name: String,
        admin: AdminClients = AdminClients(),
        project: String = "demo-project",
        environment: [String: String] = [:]
    ) throws -> WrappedRequestFunction {
        guard let function = self[name] else {
            throw WrapError(message: "no function named '\(name)'; registered: \(names.joined(separator: ", "))")
        }
        guard function.eventTrigger == nil else {
            throw WrapError(message: "'\(name)' is an event function: use wrap")
        }
        return WrappedRequestFunction(name: name, function: function, admin: admin, project: project,
            environment: environment)
    }
}
