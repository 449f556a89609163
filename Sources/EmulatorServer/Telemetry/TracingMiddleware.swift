import CloudEvents
import CloudFunctions
import Hummingbird

/// Makes a server span for each request that changes something (any method but GET, HEAD and
/// OPTIONS) and for each that carries a `traceparent` (a worker's Admin call in a trace, a
/// client's request in one), continuing that trace; the emulator's own routes
/// (`/emulator/...`), the console, and the OTLP receiver get none. The route's code runs with
/// the span as ``TraceScope/current``, so the events its writes emit carry it.
struct TracingMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext

    let tracer: EmulatorTracer

    func handle(_ request: Request, context: Context, next: EmulatorResponder) async throws -> Response {
        let parent = request.headers[.traceparent].flatMap { TraceParent($0) }
        let path = request.uri.path
        guard parent != nil || Self.changes(request.method),
            !path.hasPrefix("/emulator/"), !path.hasPrefix("/console")
        else { return try await next(request, context) }
        // Errors are caught inside the span and thrown after it: a 4xx is the client's, not a failure.
        let result: Result<Response, any Error> = await tracer.withSpan("\(request.method) \(path)", kind: .server,
            parent: parent,
            attributes: ["http.request.method": .string(request.method.rawValue), "url.path": .string(path)])
        { span in
            do {
                let response = try await next(request, context)
                span[attribute: "http.response.status_code"] = .number(Double(response.status.code))
                if response.status.code >= 500 { span.fail("HTTP \(response.status.code)") }
                return .success(response)
            } catch let error as any HTTPResponseError {
                span[attribute: "http.response.status_code"] = .number(Double(error.status.code))
                if error.status.code >= 500 { span.fail("\(error)") }
                return .failure(error)
            } catch {
                span.fail("\(error)")
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Whether a request of this method may change something: asked of every request, so no
    /// array of the others is made each time.
    private static func changes(_ method: HTTPRequest.Method) -> Bool {
        switch method {
        case .get, .head, .options: false
        default: true
        }
    }
}

extension HTTPField.Name {
    static let traceparent = Self("traceparent")!
}
