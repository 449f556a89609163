import CloudEvents
import Foundation

/// A function: its trigger, its delivery options and its handler.
///
/// Made by the trigger builders (`RemoteConfig.onUpdate`, `Database.ref(_:).onWrite`, ...)
/// and given a name by registering it in a ``FunctionRegistry``.
public struct CloudFunction: Sendable {
    /// The events the function receives.
    public let trigger: EventTrigger
    /// How events are delivered to it.
    public var options: FunctionOptions
    /// Problems found while building it (such as a malformed path pattern), reported at registration.
    public let problems: [String]
    package let handler: @Sendable (CloudEvent, EventContext) async throws -> Void

    /// Creates a function that receives raw CloudEvents.
    public init(
        trigger: EventTrigger,
        options: FunctionOptions = FunctionOptions(),
        handler: @escaping @Sendable (CloudEvent, EventContext) async throws -> Void
    ) {
        self.init(trigger: trigger, options: options, problems: [], handler: handler)
    }

    init(
        trigger: EventTrigger,
        options: FunctionOptions,
        problems: [String],
        handler: @escaping @Sendable (CloudEvent, EventContext) async throws -> Void
    ) {
        self.trigger = trigger
        self.options = options
        self.problems = problems + options.problems
        self.handler = handler
    }

    /// Runs the handler for an event, as the bus does, without retries or timeouts.
    public func invoke(_ event: CloudEvent, context: EventContext) async throws {
        try await handler(event, context)
    }

    /// The function with some options changed.
    public func options(_ changes: FunctionOption...) -> CloudFunction {
        CloudFunction(trigger: trigger, options: options.with(changes), problems: problems, handler: handler)
    }
}

/// An event whose data does not fit the handler's payload type.
public struct EventPayloadError: Error, Sendable, CustomStringConvertible {
    /// The event's type.
    public var eventType: String
    /// What is wrong.
    public var reason: String

    public var description: String { "cannot read the data of a '\(eventType)' event: \(reason)" }

    static func decode<T: Decodable>(_ type: T.Type, from event: CloudEvent) throws -> T {
        guard let data = event.data, !data.isEmpty else {
            throw EventPayloadError(eventType: event.type, reason: "the event has no data")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw EventPayloadError(eventType: event.type, reason: "\(error)")
        }
    }
}
