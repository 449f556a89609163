import Foundation
import Logging
import HTTPTypes

/// Functions that answer requests: plain HTTPS endpoints and callables.
///
/// ```swift
/// functions["hello"] = Https.onRequest { request, response in
///     response.send("Hello, \(request.query("name") ?? "world")")
/// }
/// functions["submitScore"] = Https.onCall { (request: CallableRequest<Score>) in
///     let caller = try request.requireAuth()
///     try await request.context.database.ref("scores").push(…)
///     return ["accepted": true]
/// }
/// ```
/// Options are set on the result as for any function: `.options(.region("europe-west1"))`.
public enum Https {
    /// An HTTPS endpoint: the handler reads the request and fills in the response (200 and an
    /// empty body unless it says otherwise). A thrown ``CallableError`` answers with its status
    /// and JSON body; any other error answers 500 without its text.
    public static func onRequest(
        cors: CORSPolicy = .disabled,
        invoker: [String]? = nil,
        _ handler: @escaping @Sendable (HTTPSRequest, inout HTTPSResponse) async throws -> Void
    ) -> CloudFunction {
        onRequest(cors: cors, invoker: invoker) { request, response, _ in try await handler(request, &response) }
    }

    /// An HTTPS endpoint whose handler also gets the ``RequestContext`` (logger, Admin clients).
    public static func onRequest(
        cors: CORSPolicy = .disabled,
        invoker: [String]? = nil,
        _ handler: @escaping @Sendable (HTTPSRequest, inout HTTPSResponse, RequestContext) async throws -> Void
    ) -> CloudFunction {
        let trigger = HTTPSTrigger(invoker: invoker, cors: cors)
        return CloudFunction(trigger: .https(trigger), options: FunctionOptions(), problems: [], handler: .request {
            request, context in
            if request.method == .options, let preflight = cors.preflight(request) { return preflight }
            var response: HTTPSResponse
            do {
                response = try await CallableProtocol.withDeadline(context) {
                    var response = HTTPSResponse()
                    try await handler(request, &response, context)
                    return response
                }
            } catch let error as CallableError {
                response = .error(error)
            } catch {
                context.logger.error("function failed", metadata: ["error": "\(error)"])
                response = HTTPSResponse(status: .internalServerError)
                response.send("Internal Server Error\n")
            }
            cors.apply(to: &response, for: request)
            return response
        })
    }

    /// A callable function: the client's `data` decoded into `Input`, and whatever `Output`
    /// the handler returns sent back as `result`. Throw ``CallableError`` to answer with a
    /// Firebase error code; any other error is `INTERNAL` to the caller.
    public static func onCall<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        enforceAppCheck: Bool = false,
        cors: CORSPolicy = .allowAll,
        invoker: [String]? = nil,
        _ handler: @escaping @Sendable (CallableRequest<Input>) async throws -> Output
    ) -> CloudFunction {
        onCall(enforceAppCheck: enforceAppCheck, cors: cors, invoker: invoker) { request, _ in
            try await handler(request)
        }
    }

    /// A streaming callable: the handler may send chunks with
    /// ``CallableResponse/sendChunk(_:)`` before it returns its result.
    public static func onCall<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        enforceAppCheck: Bool = false,
        cors: CORSPolicy = .allowAll,
        invoker: [String]? = nil,
        _ handler: @escaping @Sendable (CallableRequest<Input>, CallableResponse) async throws -> Output
    ) -> CloudFunction {
        let trigger = CallableTrigger(invoker: invoker, cors: cors, enforceAppCheck: enforceAppCheck)
        return CloudFunction(trigger: .callable(trigger), options: FunctionOptions(), problems: [], handler: .request {
            request, context in
            await CallableProtocol.respond(to: request, context: context, trigger: trigger, handler: handler)
        })
    }
}
