import CloudEvents
import CloudFunctions
import FirebaseEmulator
import FirebaseHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

/// Carries requests for HTTPS, callable and blocking functions to an instance of the
/// function's worker, and the answers back: whole, or piece by piece for server-sent events.
enum RequestForwarding {
    /// Header fields not passed on: those of one connection, and the length, which is set anew.
    static let unforwarded: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "host",
        "content-length",
    ]

    /// The W3C Trace Context field replaced by the emulator's span when it has one (the
    /// caller's `tracestate` goes on as it is, as the specification asks).
    static let traceField = "traceparent"

    /// The `traceparent` header of a span, if any.
    static func traceHeaders(_ trace: TraceParent?) -> [(String, String)] {
        trace.map { [("traceparent", $0.description)] } ?? []
    }

    /// Forwards `request` (with `body`) to `/{name}{path}` on an instance from `pool`.
    ///
    /// - Throws: `UNAVAILABLE` when no instance answers before the deadline.
    static func forward(
        _ request: Request,
        body: Data,
        name: String,
        path: String,
        pool: FunctionInstances,
        timeout: Duration,
        clock: any BusClock
    ) async throws -> Response {
        let supervisor = try await pool.acquire()
        var releaseNow = true
        defer { if releaseNow { pool.release(supervisor) } }
        let answer: HTTPExchange.StreamedResponse
        do {
            let base = try await supervisor.baseURL(until: clock.now.addingTimeInterval(timeout.seconds), clock: clock)
            var target = base.appendingPathComponent(name).absoluteString + (path == "/" ? "" : path)
            if let query = request.uri.query { target += "?" + query }
            // The caller's trace goes on through the emulator's span of the request, when it has one.
            let current = TraceScope.current
            let headers = request.headers
                .filter { !unforwarded.contains($0.name.canonicalName) && (current == nil || $0.name.canonicalName != traceField) }
                .map { ($0.name.canonicalName, $0.value) } + traceHeaders(current)
            answer = try await HTTPExchange.stream(request.method.rawValue, URL(string: target)!, headers: headers,
                body: body, timeout: timeout + .seconds(5))
        } catch {
            throw ServiceError(.unavailable, "the function '\(name)' did not answer: \(error)")
        }
        var fields = HTTPFields()
        for (name, value) in answer.headers where !unforwarded.contains(name.lowercased()) {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        let status = HTTPResponse.Status(code: answer.status)
        guard fields[.contentType]?.lowercased().hasPrefix("text/event-stream") == true else {
            let data = try await answer.collect()
            fields[.contentLength] = String(data.count)
            return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        // A stream keeps its instance until it ends.
        releaseNow = false
        return Response(status: status, headers: fields, body: ResponseBody { writer in
            defer { pool.release(supervisor) }
            try await answer.forEachPiece { try await writer.write($0) }
            try await writer.finish(nil)
        })
    }

    /// Sends a task's attempt to its function's worker, as Cloud Tasks does: the answer's
    /// status, or why none came.
    static func dispatch(_ attempt: TaskQueueService.Attempt, pool: FunctionInstances, clock: any BusClock) async
        -> TaskQueueService.Answer
    {
        do {
            let answer = try await post(to: attempt.queue, headers: attempt.headers, body: attempt.body,
                timeout: attempt.timeout, pool: pool, clock: clock)
            guard !(200..<300).contains(answer.status) else { return TaskQueueService.Answer(status: answer.status) }
            let text = String(decoding: answer.body.prefix(300), as: UTF8.self)
            return TaskQueueService.Answer(status: answer.status, error: "HTTP \(answer.status)" + (text.isEmpty ? "" : ": " + text))
        } catch {
            return TaskQueueService.Answer(status: nil, error: "no answer: \(error)")
        }
    }

    /// Calls a blocking function's worker, as Authentication does.
    static func call(
        _ endpoint: BlockingFunctions.Endpoint,
        body: Data,
        pool: FunctionInstances,
        clock: any BusClock
    ) async throws -> (status: Int, body: Data) {
        let answer = try await post(to: endpoint.name, headers: [("content-type", "application/json")], body: body,
            timeout: endpoint.timeout, pool: pool, clock: clock)
        return (answer.status, answer.body)
    }

    /// POSTs `body` to `/{name}` on an instance from `pool`, waiting for one up to `timeout`.
    private static func post(
        to name: String, headers: [(String, String)], body: Data, timeout: Duration, pool: FunctionInstances,
        clock: any BusClock
    ) async throws -> HTTPExchange.Response {
        let supervisor = try await pool.acquire()
        defer { pool.release(supervisor) }
        let base = try await supervisor.baseURL(until: clock.now.addingTimeInterval(timeout.seconds), clock: clock)
        return try await HTTPExchange.send("POST", base.appendingPathComponent(name),
            headers: headers + traceHeaders(TraceScope.current), body: body, timeout: timeout)
    }
}

/// Serves the deployed HTTPS and callable functions at `/{project}/{region}/{name}[/path]`,
/// where the Firebase client SDKs call a functions emulator, by forwarding to their workers.
/// Other paths go on to the emulator's routes; an unknown function under the project is 404.
struct FunctionRequestMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext
    let server: EmulatorServer
    /// Refuses a function URL called by another host name while the emulator listens on
    /// loopback only, as every other route is (the functions accept the emulator's unsigned
    /// tokens, so a page that rebinds a domain to 127.0.0.1 must not reach them).
    let hostCheck: LoopbackHost

    init(server: EmulatorServer) {
        self.server = server
        hostCheck = LoopbackHost(listeningHost: server.configuration.host)
    }

    func handle(_ request: Request, context: Context, next: EmulatorResponder) async throws -> Response {
        // Database paths (`*.json`) are never function URLs; they go on without being split.
        guard !DatabaseRequest.isDatabasePath(request.uri.path) else { return try await next(request, context) }
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 3, parts[0] == server.emulator.project else { return try await next(request, context) }
        if let refusal = hostCheck.refusal(of: request) {
            throw refusal
        }
        let region = String(parts[1])
        let name = String(parts[2])
        guard let deployment = server.deployments.deployment, let trigger = deployment.requests[name],
            let endpoint = deployment.manifest.endpoints[name], let pool = deployment.functions[name],
            endpoint.region?.contains(region) ?? (region == "us-central1")
        else {
            throw ServiceError(.notFound, "Function \(region)-\(name) does not exist, valid functions are: "
                + (server.deployments.deployment?.requests.keys.sorted().joined(separator: ", ") ?? ""))
        }
        switch trigger {
        case .blocking:
            // Authentication calls blocking functions; clients may not.
            throw ServiceError(.notFound, "'\(name)' is a blocking function: Authentication calls it on sign-up and sign-in")
        case .taskQueue:
            // Its queue calls it, as Cloud Tasks does where deployed.
            throw ServiceError(.notFound, "'\(name)' is a task-queue function: enqueue a task to its queue "
                + "(POST /projects/\(server.emulator.project)/locations/\(region)/queues/\(name)/tasks)")
        default:
            break
        }
        var request = request
        let body = try await request.bodyData(limit: server.configuration.maxBodySize)
        let path = "/" + parts.dropFirst(3).joined(separator: "/")
        return try await RequestForwarding.forward(request, body: body, name: name, path: path, pool: pool,
            timeout: .seconds(endpoint.timeoutSeconds ?? 60), clock: server.emulator.clock)
    }
}
