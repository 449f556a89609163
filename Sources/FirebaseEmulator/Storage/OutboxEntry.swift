import CloudEvents
import Foundation

/// An event in the outbox, numbered in commit order.
public struct OutboxEntry: Sendable, Hashable {
    /// The position in the outbox: events are dispatched in this order.
    public var sequence: Int64
    /// The event.
    public var event: CloudEvent
    /// When it was committed.
    public var createdAt: Date
}
