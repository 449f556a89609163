import CloudFunctions
import CloudEvents
import Foundation

/// What happened in one delivery attempt, as told to a ``DeliveryObserver``.
public struct DeliveryReport: Sendable, Hashable {
    /// How the attempt ended.
    public enum Status: Sendable, Hashable {
        /// The handler returned.
        case succeeded
        /// The handler failed or timed out and will be retried at this time, unless the bus
        /// shuts down first.
        case willRetry(at: Date)
        /// The event was given up on and is now a dead letter.
        case deadLettered(DeadLetter.Reason)
    }

    /// The function.
    public var function: String
    /// The event's id.
    public var eventId: String
    /// The event's source.
    public var eventSource: String
    /// The event's type.
    public var eventType: String
    /// The attempt number, from 1; 0 when the event expired before any attempt.
    public var attempt: Int
    /// How it ended.
    public var status: Status
    /// The error, in words, when it failed.
    public var error: String?
    /// When it ended.
    public var time: Date
    /// When the attempt started; `nil` when the event expired, which ends it without an attempt.
    public var startedAt: Date?
}

/// Told about every finished delivery attempt, and about every event finished for all its
/// functions, for event logs and durable bookkeeping.
///
/// Called synchronously on the delivering task: keep it quick and never block.
public protocol DeliveryObserver: Sendable {
    /// An attempt ended.
    func deliveryFinished(_ report: DeliveryReport)

    /// Every function an accepted event was queued for has succeeded or given up on it (its
    /// last attempt was reported first). Also said at once for an event no function matches,
    /// and for a duplicate of an event that is not in flight. Not said for an event one of
    /// whose deliveries was waiting for a retry when the bus shut down (or failed during the
    /// shutdown): it is unfinished.
    func eventFinished(_ key: CloudEvent.Key)
}

extension DeliveryObserver {
    /// Does nothing: observers that only log attempts need not implement it.
    public func eventFinished(_ key: CloudEvent.Key) {}
}
