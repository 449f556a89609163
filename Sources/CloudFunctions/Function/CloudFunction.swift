import CloudEvents
import Foundation

/// A function: its trigger, its options and its handler.
///
/// Made by the trigger builders (`RemoteConfig.onUpdate`, `Database.ref(_:).onWrite`,
/// `Https.onCall`, `Identity.beforeUserCreated`, ...) and given a name by registering it in
/// a ``FunctionRegistry``. Event functions run on events from the bus; request functions
/// (HTTPS, callable, blocking) answer HTTP requests.
public struct CloudFunction: Sendable {
    /// What makes it run.
    public let trigger: FunctionTrigger
    /// How it runs: timeout, concurrency, instances, and for events the retry policy.
    public var options: FunctionOptions
    /// Problems found while building it (a malformed path pattern, say).
    let buildProblems: [String]
    package let handler: Handler

    /// The two shapes of handler.
    package enum Handler: Sendable {
        /// Runs once per event delivery; throwing fails the delivery.
        case event(@Sendable (CloudEvent, EventContext) async throws -> Void)
        /// Answers one request.
        case request(@Sendable (HTTPSRequest, RequestContext) async -> HTTPSResponse)
    }

    /// Creates a function that receives raw CloudEvents.
    public init(
        trigger: EventTrigger,
        options: FunctionOptions = FunctionOptions(),
        handler: @escaping @Sendable (CloudEvent, EventContext) async throws -> Void
    ) {
        self.init(trigger: .event(trigger), options: options, problems: [], handler: .event(handler))
    }

    package init(trigger: EventTrigger, options: FunctionOptions, problems: [String],
        handler: @escaping @Sendable (CloudEvent, EventContext) async throws -> Void)
    {
        self.init(trigger: .event(trigger), options: options, problems: problems, handler: .event(handler))
    }

    init(trigger: FunctionTrigger, options: FunctionOptions, problems: [String], handler: Handler) {
        self.trigger = trigger
        self.options = options
        self.buildProblems = problems
        self.handler = handler
    }

    /// Problems that keep it from being registered, reported by ``FunctionRegistry/validate()``.
    public var problems: [String] {
        buildProblems + options.problems(maximumTimeout: trigger.maximumTimeout)
    }

    /// The event trigger, for event functions.
    public var eventTrigger: EventTrigger? { trigger.eventTrigger }

    /// Runs the handler for an event, as the bus does, without retries or timeouts.
    ///
    /// - Throws: the handler's error; ``NotAnEventFunction`` for a request function.
    public func invoke(_ event: CloudEvent, context: EventContext) async throws {
        guard case .event(let handler) = handler else { throw NotAnEventFunction(trigger: trigger) }
        try await handler(event, context)
    }

    /// Answers a request, as the worker does: a callable's errors, a blocking function's
    /// refusal and an HTTPS handler's failure all become the response. An event function
    /// answers 404.
    public func respond(to request: HTTPSRequest, context: RequestContext) async -> HTTPSResponse {
        guard case .request(let handler) = handler else {
            var response = HTTPSResponse(status: .notFound)
            response.send("'\(context.functionName)' is an event function; it takes no requests\n")
            return response
        }
        return await handler(request, context)
    }

    /// The function with some options changed.
    public func options(_ changes: FunctionOption...) -> CloudFunction {
        CloudFunction(trigger: trigger, options: options.with(changes), problems: buildProblems, handler: handler)
    }
}

/// A request function was given an event.
public struct NotAnEventFunction: Error, Sendable, CustomStringConvertible {
    /// The function's trigger.
    public var trigger: FunctionTrigger

    public var description: String { "the function answers \(trigger.summary) requests; it takes no events" }
}

/// An event whose data does not fit the handler's payload type.
public struct EventPayloadError: Error, Sendable, CustomStringConvertible {
    /// The event's type.
    public var eventType: String
    /// What is wrong.
    public var reason: String

    /// The error for `event`, whose data is not what its trigger reads.
    package static func refusing(_ event: CloudEvent, _ reason: String) -> EventPayloadError {
        EventPayloadError(eventType: event.type, reason: reason)
    }

    public var description: String { "cannot read the data of a '\(eventType)' event: \(reason)" }

    /// One decoder for every event's data: it has no per-call state, and making one per event
    /// showed in the worker's profile.
    private static let decoder = JSONDecoder()

    static func decode<T: Decodable>(_ type: T.Type, from event: CloudEvent) throws -> T {
        let data = try data(of: event)
        do {
            return try EventPayloadError.decoder.decode(T.self, from: data)
        } catch {
            throw EventPayloadError(eventType: event.type, reason: "\(error)")
        }
    }

    /// The event's data as a JSON value, read by the strict parser rather than through
    /// `Decodable` (several times faster, and the database's payloads are all JSON values).
    static func json(from event: CloudEvent) throws -> JSONValue {
        let data = try data(of: event)
        do {
            return try JSONValue(parsing: data)
        } catch {
            throw EventPayloadError(eventType: event.type, reason: "\(error)")
        }
    }

    private static func data(of event: CloudEvent) throws(EventPayloadError) -> Data {
        guard let data = event.data, !data.isEmpty else {
            throw EventPayloadError(eventType: event.type, reason: "the event has no data")
        }
        return data
    }
}
