import CloudEvents
import CloudFunctions
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import CoreMetrics
import Tracing

extension FunctionsWorker {
    /// Why an invocation did not succeed, as the HTTP answer says it.
    struct InvocationFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The header that carries the delivery attempt (1 for the first), as the emulator sends it.
    ///
    /// Not a standard CloudEvents attribute: Eventarc and Knative do not send it, and then the
    /// attempt is 1. A value below 1 or not a number counts as 1.
    public static let attemptHeader = HTTPField.Name("ce-attempt")!

    /// Set to `true` on the 200 answer to an event the function's trigger excludes, which is not run.
    public static let skippedHeader = HTTPField.Name("X-Functions-Skipped")!

    /// The W3C Trace Context header: the delivery's span, which the invocation's span continues.
    static let traceparentHeader = HTTPField.Name("traceparent")!
    /// Its companion, the vendors' trace state.
    static let tracestateHeader = HTTPField.Name("tracestate")!
    /// Cloud Trace's header, read when there is no `traceparent`.
    static let cloudTraceHeader = HTTPField.Name("X-Cloud-Trace-Context")!

    /// Runs `name` once for the event in `request` and answers as ``FunctionsWorker`` describes.
    ///
    /// An event of another type than the function's trigger, with a character set other than
    /// UTF-8, or whose data does not fit the handler's payload type (a user without a uid, say)
    /// is refused with 400, which no broker retries: sending it again could not help. An event
    /// of the right type outside the trigger's path pattern or filters is acknowledged (200,
    /// ``skippedHeader``) and not run.
    func invoke(_ request: Request, function name: String, path: String) async throws -> Response {
        guard gate.enter() else {
            var response = text(.serviceUnavailable, "the worker is shutting down; send the event again")
            response.headers[.connection] = "close"
            return response
        }
        defer { gate.leave() }
        guard let function = functions[name] else {
            let served = functions.names.joined(separator: ", ")
            return text(.notFound, "no function named '\(name)'; this worker serves: \(served)")
        }
        guard let trigger = function.eventTrigger else {
            return try await respond(request, function: function, name: name, path: path)
        }
        guard request.method == .post, path == "/" else {
            return text(.methodNotAllowed, "'\(name)' is an event function: POST events to /\(name)")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maxBodySize)
        } catch {
            return text(.contentTooLarge, "the event is larger than \(maxBodySize) bytes")
        }
        let headers = EventHeaders(request.headers)
        if let contentType = headers.contentType, CloudEvent.isBatchMediaType(contentType) {
            return batchResponse(body: Data(buffer: body), function: function, name: name, trigger: trigger,
                delivery: headers.delivery)
        }
        let event: CloudEvent
        if !headers.isCloudEvent, let fired = Self.firing(for: trigger, headers: request.headers, event: nil) {
            event = fired
        } else {
            do {
                let parsed = try Self.event(headers: request.headers, isCloudEvent: headers.isCloudEvent,
                    body: Data(buffer: body))
                event = Self.firing(for: trigger, headers: request.headers, event: parsed) ?? parsed
            } catch {
                let kind = headers.isCloudEvent ? "CloudEvent" : "legacy event (no ce- headers)"
                return text(.badRequest, "invalid \(kind): \(error)")
            }
        }
        let attempt = headers.attempt.flatMap(Int.init) ?? 1
        switch await run(event, function: function, name: name, trigger: trigger, attempt: attempt,
            delivery: headers.delivery)
        {
        case .ran:
            // 200, as the Functions Framework answers: brokers take 200 and 202 as delivered.
            return Response(status: .ok)
        case .skipped(let reason):
            // A broker that filters on the type alone (a Knative Trigger) delivers events the
            // function's path pattern or filters exclude: acknowledged, so not retried, not run.
            var response = text(.ok, reason)
            response.headers[Self.skippedHeader] = "true"
            return response
        case .refused(let reason):
            return text(.badRequest, reason)
        case .failed(let reason):
            var response = text(.internalServerError, reason)
            response.headers[HTTPField.Name("X-Google-Status")!] = "error"
            return response
        }
    }

    /// The trace context of an event's delivery, from the request's headers.
    struct Delivery: Sendable {
        /// The name of the extension the emulator gives each event of a batch: the span of its
        /// delivery attempt, which the request's `traceparent` header carries for a lone event.
        static let batchExtension = "deliverytraceparent"

        var traceparent: String?
        var tracestate: String?
        var cloudTraceContext: String?

        /// The context an invocation continues, as it came (parsed only by a tracer, or by a
        /// log handler when a line is written).
        struct Parent: Sendable {
            var traceparent: String
            var tracestate: String?

            /// The context as the process's tracer reads it.
            var serviceContext: ServiceContext {
                var context = ServiceContext.topLevel
                var carrier = ["traceparent": traceparent]
                if let tracestate { carrier["tracestate"] = tracestate }
                InstrumentationSystem.instrument.extract(carrier, into: &context, using: TraceHeaders())
                return context
            }
        }

        /// The span an invocation of `event` (or of a request function, without one) continues:
        /// the batch entry's delivery span, the request's `traceparent`, Cloud Trace's header, or
        /// the span that created the event.
        func parent(of event: CloudEvent?) -> Parent? {
            if case .string(let text)? = event?.extensions[Self.batchExtension] { return Parent(traceparent: text) }
            if let traceparent { return Parent(traceparent: traceparent, tracestate: tracestate) }
            if let cloud = cloudTraceContext.flatMap({ TraceParent(cloudTraceContext: $0) }) {
                return Parent(traceparent: cloud.description)
            }
            guard let event, case .string(let text)? = event.extensions["traceparent"] else { return nil }
            if case .string(let state)? = event.extensions["tracestate"] { return Parent(traceparent: text, tracestate: state) }
            return Parent(traceparent: text)
        }
    }

    /// What became of one event.
    enum Outcome: Sendable {
        /// The handler returned (200, with no body).
        case ran
        /// The trigger's path pattern or filters exclude it: acknowledged, not run (200).
        case skipped(String)
        /// It cannot be run, now or ever (400): the wrong type, charset or payload.
        case refused(String)
        /// The handler threw or timed out (500); brokers retry.
        case failed(String)

        /// The outcome as metrics and spans name it.
        var name: String {
            switch self {
            case .ran: "ok"
            case .skipped: "skipped"
            case .refused: "refused"
            case .failed: "failed"
            }
        }

        /// The HTTP status a single event's answer has.
        var status: Int {
            switch self {
            case .ran: 200
            case .skipped: 200
            case .refused: 400
            case .failed: 500
            }
        }
    }

    /// Runs `function` once for `event`, unless the event is not for it, in a span of its own
    /// when tracing: a child of the delivery's span (``Delivery``), else of the span that created
    /// the event (its `traceparent` extension). Its metrics, when recorded, count the outcome.
    ///
    /// Without a tracer the context is not even parsed: the log lines name it as it came.
    func run(
        _ event: CloudEvent,
        function: CloudFunction,
        name: String,
        trigger: EventTrigger,
        attempt: Int,
        delivery: Delivery
    ) async -> Outcome {
        let parent = delivery.parent(of: event)
        // The batch's delivery context is the transport's, not the event's: handlers never see it.
        var event = event
        if event.extensions[Delivery.batchExtension] != nil { event.extensions[Delivery.batchExtension] = nil }
        guard let metrics = metrics[name] else {
            return await traced(event, function: function, name: name, trigger: trigger, attempt: attempt, parent: parent)
        }
        metrics.inFlight.increment()
        let start = ContinuousClock.now
        let outcome = await traced(event, function: function, name: name, trigger: trigger, attempt: attempt,
            parent: parent)
        metrics.inFlight.decrement()
        metrics.duration.recordNanoseconds(Int64((ContinuousClock.now - start) / .nanoseconds(1)))
        switch outcome {
        case .ran: metrics.ran.increment()
        case .skipped: metrics.skipped.increment()
        case .refused: metrics.refused.increment()
        case .failed: metrics.failed.increment()
        }
        return outcome
    }

    /// Runs the handler in a span of its own when tracing.
    private func traced(
        _ event: CloudEvent,
        function: CloudFunction,
        name: String,
        trigger: EventTrigger,
        attempt: Int,
        parent: Delivery.Parent?
    ) async -> Outcome {
        guard tracesInvocations else {
            return await runHandler(event, function: function, name: name, trigger: trigger, attempt: attempt,
                trace: parent?.traceparent)
        }
        return await withSpan(name, context: parent?.serviceContext ?? .topLevel, ofKind: .consumer) {
            (span: any Span) async -> Outcome in
            // An unsampled span is neither recorded nor named by the log lines, which keep the parent's.
            guard span.isRecording else {
                return await runHandler(event, function: function, name: name, trigger: trigger, attempt: attempt,
                    trace: parent?.traceparent)
            }
            span.attributes["faas.name"] = name
            span.attributes["faas.trigger"] = Self.faasTrigger(of: trigger)
            span.attributes["cloudevents.event_id"] = event.id
            span.attributes["cloudevents.event_type"] = event.type
            span.attributes["cloudevents.event_source"] = event.source
            span.attributes["functions.attempt"] = attempt
            let outcome = await runHandler(event, function: function, name: name, trigger: trigger, attempt: attempt,
                trace: Self.traceparent(of: span) ?? parent?.traceparent)
            span.attributes["functions.outcome"] = outcome.name
            if case .failed(let reason) = outcome { span.setStatus(SpanStatus(code: .error, message: reason)) }
            if case .refused(let reason) = outcome { span.setStatus(SpanStatus(code: .error, message: reason)) }
            return outcome
        }
    }

    /// OpenTelemetry's `faas.trigger` of an event function: `datasource` for database and
    /// Firestore triggers, `timer` for schedules, `pubsub` for Pub/Sub, else `other`.
    static func faasTrigger(of trigger: EventTrigger) -> String {
        let type = trigger.eventType
        if type.contains(".database.") || type.contains(".firestore.") { return "datasource" }
        if type.contains("scheduler") { return "timer" }
        if type.contains(".pubsub.") { return "pubsub" }
        return "other"
    }

    /// A span's `traceparent`, as the process's tracer writes it.
    static func traceparent(of span: any Span) -> String? {
        var headers: [String: String] = [:]
        InstrumentationSystem.instrument.inject(span.context, into: &headers, using: TraceHeaders())
        return headers["traceparent"]
    }

    /// Runs the handler; `trace` is the span its log lines name.
    private func runHandler(
        _ event: CloudEvent,
        function: CloudFunction,
        name: String,
        trigger: EventTrigger,
        attempt: Int,
        trace: String?
    ) async -> Outcome {
        guard event.type == trigger.eventType else {
            return .refused("the function '\(name)' handles '\(trigger.eventType)' events, not '\(event.type)'")
        }
        if let charset = Self.charset(of: event.dataContentType), !["utf-8", "utf8", "us-ascii"].contains(charset) {
            return .refused("the event's data is in charset '\(charset)'; only UTF-8 is read")
        }
        if let reason = trigger.mismatch(event) { return .skipped("not run: " + reason) }
        let deadline = clock.now.addingTimeInterval(timeout(of: function).seconds)
        var logger = logger
        if let trace { logger[metadataKey: "traceparent"] = .string(trace) }
        let context = EventContext(
            functionName: name,
            event: event,
            trigger: trigger,
            attempt: max(1, attempt),
            deadline: deadline,
            admin: admin,
            paramValues: ParamValues(for: function, named: name),
            logger: logger
        )
        do {
            try await runWithTimeout(function, event: event, context: context, deadline: deadline)
            return .ran
        } catch let error as EventPayloadError {
            context.logger.error("the event's data does not fit the function", metadata: ["error": "\(error)"])
            return .refused("\(error)")
        } catch {
            context.logger.error("function failed", metadata: ["error": "\(error)"])
            return .failed("\(error)")
        }
    }

    /// Runs the handler; past the deadline it is cancelled and the invocation fails.
    func runWithTimeout(
        _ function: CloudFunction,
        event: CloudEvent,
        context: EventContext,
        deadline: Date
    ) async throws {
        guard try await clock.run(until: deadline, { try await function.invoke(event, context: context) }) != nil else {
            // The wording of the event bus's own timeout, so the event log reads the same.
            let seconds = function.options.timeout.seconds.formatted()
            throw InvocationFailure(description: "timed out after \(seconds) s")
        }
    }

    /// The lowercased `charset` parameter of a media type, if it has one.
    static func charset(of mediaType: String?) -> String? {
        guard let mediaType, mediaType.utf8.contains(UInt8(ascii: ";")) else { return nil }
        for parameter in mediaType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \"")).lowercased()
            }
        }
        return nil
    }

    /// Every method request functions are served for.
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    /// Reads a binary- or structured-mode CloudEvent, or (when `isCloudEvent` is false) a legacy
    /// background event.
    static func event(headers: HTTPFields, isCloudEvent: Bool, body: Data) throws -> CloudEvent {
        guard isCloudEvent else { return try LegacyEvent.cloudEvent(from: body) }
        let fields = headers.map { CloudEventHTTPMessage.Field(name: $0.name.canonicalName, value: $0.value) }
        return try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: fields, body: body))
    }

    /// What the worker reads of an event request's headers, found in one pass over them.
    struct EventHeaders {
        var contentType: String?
        /// ``FunctionsWorker/attemptHeader``.
        var attempt: String?
        /// The delivery's trace context.
        var delivery = Delivery()
        /// Whether the request carries a CloudEvent (`ce-` headers or a CloudEvents content
        /// type) rather than a legacy background event.
        var isCloudEvent: Bool

        init(_ headers: HTTPFields) {
            var hasAttributes = false
            for field in headers {
                switch field.name {
                case .contentType: contentType = Self.joined(contentType, field.value)
                case FunctionsWorker.attemptHeader:
                    // A `ce-` header like any other: it makes the request a CloudEvent.
                    attempt = Self.joined(attempt, field.value)
                    hasAttributes = true
                case FunctionsWorker.traceparentHeader: delivery.traceparent = field.value
                case FunctionsWorker.tracestateHeader: delivery.tracestate = Self.joined(delivery.tracestate, field.value)
                case FunctionsWorker.cloudTraceHeader: delivery.cloudTraceContext = field.value
                default:
                    if !hasAttributes, field.name.canonicalName.utf8.starts(with: "ce-".utf8) { hasAttributes = true }
                }
            }
            isCloudEvent = hasAttributes || contentType?.lowercased().hasPrefix("application/cloudevents") == true
        }

        /// A repeated field's values joined, as `HTTPFields`' subscript gives them.
        private static func joined(_ earlier: String?, _ value: String) -> String {
            earlier.map { $0 + ", " + value } ?? value
        }
    }

    func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: message + "\n"))
        )
    }
}
