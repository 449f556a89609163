import CloudEvents
import CloudFunctions
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat
import Tracing

extension FunctionsWorker {
    /// Hands a request to an HTTPS, callable or blocking function and sends its answer back,
    /// streaming a streamed body as it is written.
    func respond(_ request: Request, function: CloudFunction, name: String, path: String) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maxBodySize)
        } catch {
            var refused = HTTPSResponse.error(CallableError(.invalidArgument, "the request is larger than \(maxBodySize) bytes"))
            refused.status = .contentTooLarge
            return response(refused)
        }
        let incoming = HTTPSRequest(
            method: request.method,
            path: path,
            queryItems: HTTPSRequest.parseQuery(request.uri.query ?? ""),
            headerFields: request.headers,
            body: Data(buffer: body)
        )
        let parent = EventHeaders(request.headers).delivery.parent(of: nil)
        let receivedAt = Self.receivedAt(request, by: function)
        guard tracesInvocations else {
            return response(await respond(incoming, function: function, name: name, receivedAt: receivedAt,
                trace: parent?.traceparent))
        }
        let answer = await withSpan(name, context: parent?.serviceContext ?? .topLevel, ofKind: .server) {
            (span: any Span) async -> HTTPSResponse in
            guard span.isRecording else {
                return await respond(incoming, function: function, name: name, receivedAt: receivedAt,
                    trace: parent?.traceparent)
            }
            span.attributes["faas.name"] = name
            span.attributes["faas.trigger"] = "http"
            span.attributes["http.request.method"] = request.method.rawValue
            let answer = await respond(incoming, function: function, name: name, receivedAt: receivedAt,
                trace: Self.traceparent(of: span) ?? parent?.traceparent)
            span.attributes["http.response.status_code"] = answer.status.code
            if answer.status.code >= 500 { span.setStatus(SpanStatus(code: .error, message: "HTTP \(answer.status.code)")) }
            return answer
        }
        return response(answer)
    }

    /// Runs a request function's handler; `trace` is the span its log lines name.
    private func respond(
        _ incoming: HTTPSRequest, function: CloudFunction, name: String, receivedAt: String?, trace: String?
    ) async -> HTTPSResponse {
        var logger = logger
        if let trace { logger[metadataKey: "traceparent"] = .string(trace) }
        let context = RequestContext(
            functionName: name,
            deadline: clock.now.addingTimeInterval(timeout(of: function).seconds),
            clock: clock,
            admin: admin,
            tokens: tokens,
            region: function.options.deploymentRegion,
            receivedAt: receivedAt,
            paramValues: ParamValues(for: function, named: name),
            logger: logger
        )
        return await function.respond(to: incoming, context: context)
    }

    /// The URL a blocking call was addressed to, which its token must name (Cloud Run ends TLS
    /// in front of the service: the caller addressed https); other functions need none.
    private static func receivedAt(_ request: Request, by function: CloudFunction) -> String? {
        guard case .blocking = function.trigger, let authority = request.head.authority else { return nil }
        return "https://\(authority)\(request.uri.path)"
    }

    /// The HTTP response of a function's answer, its streamed body written as it comes. A
    /// streamed answer (a streaming callable's) runs the function on while it is written, so it
    /// holds the shutdown gate until it ends.
    func response(_ answer: HTTPSResponse) -> Response {
        var headers = answer.headerFields
        guard let writer = answer.bodyWriter else {
            headers[.contentLength] = String(answer.body.count)
            return Response(status: answer.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
        let first = answer.body
        let hold = gate.hold()
        return Response(status: answer.status, headers: headers, body: ResponseBody { output in
            defer { hold.release() }
            if !first.isEmpty { try await output.write(ByteBuffer(bytes: first)) }
            try await writer { piece in try await output.write(ByteBuffer(bytes: piece)) }
            try await output.finish(nil)
        })
    }
}
