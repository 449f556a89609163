import CloudFunctions
import CloudEvents
import Foundation

/// An event a function did not process, kept so it can be inspected and replayed.
public struct DeadLetter: Sendable, Hashable, Identifiable {
    /// Why the event was given up on.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// The attempt failed and the function does not retry.
        case failed
        /// Retries ran out: the attempt limit or the retry window was reached.
        case exhausted
        /// The event was older than the function's maximum age before it could run.
        case expired
    }

    /// The function that did not process the event.
    public var function: String
    /// The event.
    public var event: CloudEvent
    /// How many attempts ran.
    public var attempts: Int
    /// The last attempt's error, in words.
    public var lastError: String?
    /// Why it was given up on.
    public var reason: Reason
    /// When it was given up on.
    public var time: Date

    /// Creates a dead letter (the bus makes its own; a store that kept one gives it back so).
    public init(function: String, event: CloudEvent, attempts: Int, lastError: String?, reason: Reason, time: Date) {
        self.function = function
        self.event = event
        self.attempts = attempts
        self.lastError = lastError
        self.reason = reason
        self.time = time
    }

    /// Identifies the dead letter: the function and the event's source and id.
    public var id: String { Self.id(function: function, eventSource: event.source, eventId: event.id) }

    /// The ``id`` of the dead letter of `function` for the event of that source and id.
    static func id(function: String, eventSource: String, eventId: String) -> String {
        "\(function) \(eventSource) \(eventId)"
    }
}
