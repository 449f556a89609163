import CloudFunctions
import Foundation

/// One event of a Realtime Database change feed, as the REST streaming protocol sends it
/// (`event: put|patch` and `data: {"path": ..., "data": ...}`).
public struct DatabaseChangeEvent: Sendable, Hashable, Codable {
    /// The SSE event name.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Replace the data at ``path`` with ``data``.
        case put
        /// Merge the children in ``data`` (keys may be relative paths) into the data at ``path``.
        case patch
    }

    /// `put` or `patch`.
    public var event: Kind
    /// The location, relative to the listened one: `/` for itself, `/a/b` below it.
    public var path: String
    /// The new value (rendered); for a patch, an object of the changed children.
    public var data: JSONValue

    /// Creates an event.
    public init(event: Kind, path: String, data: JSONValue) {
        self.event = event
        self.path = path
        self.data = data
    }

    /// The SSE `data` line's JSON: `{"path": ..., "data": ...}`.
    public var payload: JSONValue {
        ["path": .string(path), "data": data]
    }
}
