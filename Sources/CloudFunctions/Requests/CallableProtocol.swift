import Foundation
import Logging
import HTTPTypes

/// The callable wire protocol, as the Firebase client SDKs speak it.
///
/// `POST` with `Content-Type: application/json` and a body of exactly `{"data": …}`; the
/// answer is 200 `{"result": …}`, or `{"error": {"status", "message", "details"?}}` with the
/// HTTP status of the error's code. A request that breaks these rules is 400
/// `INVALID_ARGUMENT` "Bad Request". `Authorization: Bearer <ID token>` and
/// `X-Firebase-AppCheck` are checked with the context's ``TokenVerifier``; a token that does
/// not verify is 401 `UNAUTHENTICATED`. With `Accept: text/event-stream` the answer is 200 at
/// once and then server-sent events: `data: {"message": chunk}` per chunk, then
/// `data: {"result": …}` or `data: {"error": …}`, with a `: ping` comment every 30 s of silence.
package enum CallableProtocol {
    package static let appCheckHeader = HTTPField.Name("X-Firebase-AppCheck")!
    static let instanceIdHeader = HTTPField.Name("Firebase-Instance-ID-Token")!
    static let keepAliveInterval: Duration = .seconds(30)

    static func respond<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        to request: HTTPSRequest,
        context: RequestContext,
        trigger: CallableTrigger,
        handler: @escaping @Sendable (CallableRequest<Input>, CallableResponse) async throws -> Output
    ) async -> HTTPSResponse {
        if request.method == .options, let preflight = trigger.cors.preflight(request) { return preflight }
        let streaming = request.headerFields[.accept]?.lowercased() == "text/event-stream"
        var response: HTTPSResponse
        if streaming {
            response = HTTPSResponse(
                status: .ok,
                headerFields: [.contentType: "text/event-stream", .cacheControl: "no-cache"]
            )
            response.bodyWriter = { write in
                try await stream(request, context: context, trigger: trigger, handler: handler, write: write)
            }
        } else {
            do {
                let call: CallableRequest<Input> = try await prepare(request, context: context, trigger: trigger,
                    streaming: false)
                let output = try await withDeadline(context) {
                    try await handler(call, CallableResponse(acceptsStreaming: false) { _ in })
                }
                response = .json(["result": try JSONValue(encoding: output)])
            } catch {
                let error = visible(error, context: context)
                response = .error(error)
            }
        }
        trigger.cors.apply(to: &response, for: request)
        return response
    }

    /// Runs a streaming call, writing its events.
    private static func stream<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ request: HTTPSRequest,
        context: RequestContext,
        trigger: CallableTrigger,
        handler: @escaping @Sendable (CallableRequest<Input>, CallableResponse) async throws -> Output,
        write: (Data) async throws -> Void
    ) async throws {
        let (frames, continuation) = AsyncStream.makeStream(of: Data.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let last: JSONValue
                do {
                    let call: CallableRequest<Input> = try await prepare(request, context: context, trigger: trigger,
                        streaming: true)
                    let response = CallableResponse(acceptsStreaming: true) { chunk in
                        continuation.yield(event(["message": chunk]))
                    }
                    let output = try await withDeadline(context) { try await handler(call, response) }
                    last = ["result": try JSONValue(encoding: output)]
                } catch {
                    last = ["error": visible(error, context: context).wireValue]
                }
                continuation.yield(event(last))
                continuation.finish()
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: keepAliveInterval)
                    continuation.yield(Data(": ping\n\n".utf8))
                }
            }
            defer { group.cancelAll() }
            for await frame in frames { try await write(frame) }
        }
    }

    private static func event(_ value: JSONValue) -> Data {
        Data("data: ".utf8) + value.serializedData() + Data("\n\n".utf8)
    }

    /// Checks the request and the caller's tokens, and decodes the data.
    private static func prepare<Input: Decodable & Sendable>(
        _ request: HTTPSRequest,
        context: RequestContext,
        trigger: CallableTrigger,
        streaming: Bool
    ) async throws(CallableError) -> CallableRequest<Input> {
        let badRequest = CallableError(.invalidArgument, "Bad Request")
        guard request.method == .post else { throw badRequest }
        guard request.mediaType == "application/json" else { throw badRequest }
        guard case .object(let body)? = try? JSONValue(parsing: request.body), let data = body["data"], body.count == 1
        else { throw badRequest }
        var auth: AuthData?
        if let header = request.headerFields[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw CallableError(.unauthenticated, "Unauthenticated")
            }
            let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
            do {
                let claims = try await context.tokens.verify(token, as: .idToken)
                auth = AuthData(uid: claims["sub"]?.stringValue ?? "", token: claims, rawToken: token)
            } catch {
                context.logger.warning("refused an ID token", metadata: ["reason": "\(error.reason)"])
                throw CallableError(.unauthenticated, "Unauthenticated")
            }
        }
        var app: AppCheckData?
        if let token = request.headerFields[appCheckHeader] {
            do {
                let claims = try await context.tokens.verify(token, as: .appCheck)
                app = AppCheckData(appId: claims["sub"]?.stringValue ?? "", token: claims)
            } catch {
                context.logger.warning("refused an App Check token", metadata: ["reason": "\(error.reason)"])
            }
        }
        if trigger.enforceAppCheck, app == nil { throw CallableError(.unauthenticated, "Unauthenticated") }
        let input: Input
        do {
            input = try unwrapNumbers(data).decode(as: Input.self)
        } catch let error as CallableError {
            throw error
        } catch {
            throw CallableError(.invalidArgument, "the data does not fit \(Input.self): \(describe(error))")
        }
        return CallableRequest(
            data: input,
            auth: auth,
            app: app,
            instanceIdToken: request.headerFields[instanceIdHeader],
            acceptsStreaming: streaming,
            rawRequest: request,
            context: context
        )
    }

    /// Replaces the `Int64Value`/`UInt64Value` wrappers the iOS SDK sends for 64-bit integers by numbers.
    static func unwrapNumbers(_ value: JSONValue) throws(CallableError) -> JSONValue {
        switch value {
        case .array(let items):
            var unwrapped: [JSONValue] = []
            for item in items { unwrapped.append(try unwrapNumbers(item)) }
            return .array(unwrapped)
        case .object(let object):
            if let type = object["@type"]?.stringValue {
                guard type == "type.googleapis.com/google.protobuf.Int64Value"
                    || type == "type.googleapis.com/google.protobuf.UInt64Value",
                    let text = object["value"]?.stringValue, let number = Double(text)
                else { throw CallableError(.internal, "INTERNAL") }
                return .number(number)
            }
            var unwrapped: [String: JSONValue] = [:]
            for (key, item) in object { unwrapped[key] = try unwrapNumbers(item) }
            return .object(unwrapped)
        default:
            return value
        }
    }

    /// A decoding error in words, without Swift's type dump.
    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            "'\(path(context.codingPath + [key]))' is missing"
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            "'\(path(context.codingPath))' is not \(type)"
        case DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty ? context.debugDescription : "'\(path(context.codingPath))': \(context.debugDescription)"
        default:
            "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "data" : "data." + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    /// What the caller may see of an error: a ``CallableError`` as it is; anything else is
    /// logged and answered as `INTERNAL`.
    static func visible(_ error: any Error, context: RequestContext) -> CallableError {
        if let error = error as? CallableError { return error }
        context.logger.error("function failed", metadata: ["error": "\(error)"])
        return .hidden
    }

    /// Runs `body`, failing with `deadline-exceeded` (and cancelling it) past the context's deadline.
    static func withDeadline<T: Sendable>(
        _ context: RequestContext,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard context.deadline != .distantFuture else { return try await body() }
        guard let value = try await context.clock.run(until: context.deadline, body) else {
            throw CallableError(.deadlineExceeded, "the function did not answer in time")
        }
        return value
    }
}
