import CloudEvents
import CloudFunctions
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

extension FunctionsWorker {
    /// Why an invocation did not succeed, as the HTTP answer says it.
    struct InvocationFailure: Error, CustomStringConvertible {
        let description: String
    }

    func invoke(_ request: Request, function name: String) async throws -> Response {
        guard let function = functions[name] else {
            return text(.notFound, "no function named '\(name)'; this worker serves: \(functions.names.joined(separator: ", "))")
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maxBodySize)
        } catch {
            return text(.contentTooLarge, "the event is larger than \(maxBodySize) bytes")
        }
        let event: CloudEvent
        do {
            event = try Self.event(headers: request.headers, body: Data(buffer: body))
        } catch {
            return text(.badRequest, "not a CloudEvent: \(error)")
        }
        let deadline = clock.now.addingTimeInterval(function.options.timeout.seconds)
        let context = EventContext(
            functionName: name,
            event: event,
            params: function.trigger.match(event) ?? [:],
            attempt: request.headers[HTTPField.Name("ce-attempt")!].flatMap(Int.init) ?? 1,
            deadline: deadline,
            admin: admin,
            logger: logger
        )
        do {
            try await runWithTimeout(function, event: event, context: context, deadline: deadline)
            return Response(status: .noContent)
        } catch {
            var response = text(.internalServerError, "\(error)")
            response.headers[HTTPField.Name("X-Google-Status")!] = "error"
            return response
        }
    }

    /// Runs the handler; past the deadline it is cancelled and the invocation fails.
    func runWithTimeout(_ function: CloudFunction, event: CloudEvent, context: EventContext, deadline: Date) async throws {
        let clock = clock
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await function.invoke(event, context: context)
                return true
            }
            group.addTask {
                try await clock.sleep(until: deadline)
                return false
            }
            defer { group.cancelAll() }
            guard let finished = try await group.next(), finished else {
                throw InvocationFailure(description: "timed out after \(function.options.timeout)")
            }
        }
    }

    /// Reads a binary- or structured-mode CloudEvent, or a legacy background event.
    static func event(headers: HTTPFields, body: Data) throws -> CloudEvent {
        let isCloudEvent = headers.contains { $0.name.canonicalName.hasPrefix("ce-") }
            || headers[.contentType]?.lowercased().hasPrefix("application/cloudevents") == true
        guard isCloudEvent else { return try LegacyEvent.cloudEvent(from: body) }
        let fields = headers.map { CloudEventHTTPMessage.Field(name: $0.name.canonicalName, value: $0.value) }
        return try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: fields, body: body))
    }

    private func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: message + "\n"))
        )
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
