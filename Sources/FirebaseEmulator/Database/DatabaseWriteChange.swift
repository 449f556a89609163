import Foundation
import CloudFunctions

/// What one write did, for firing triggers and answering the request.
///
/// Values are in storage form (see ``DatabaseTree``): no `null` members, no empty objects,
/// arrays stored as objects with index keys. Use ``DatabaseTree/rendered(_:)`` for the wire
/// form. The change keeps the value after the write plus what each written location held
/// before, and works out ``before`` on demand, so that writing never copies untouched data.
package struct DatabaseWriteChange: Sendable, Hashable {
    /// What one location held before the write.
    public struct Overwritten: Sendable, Hashable {
        /// The location whose value was replaced: a written location, or a shallower one when
        /// a primitive there was replaced by an object.
        public var path: DatabasePath
        /// The value it held (`null` when absent).
        public var value: JSONValue

        /// Creates an entry.
        public init(path: DatabasePath, value: JSONValue) {
            self.path = path
            self.value = value
        }
    }

    /// The root of the write: the `set`/`delete` location, the pushed child, or the `update` location.
    public var path: DatabasePath
    /// The value at ``path`` after the write, with server values resolved (`null` when absent).
    public var after: JSONValue
    /// The absolute locations written: `[path]` for set/delete/push, one per key for update.
    public var writtenPaths: [DatabasePath]
    /// What the write replaced, in the order it was applied.
    public var overwritten: [Overwritten]

    /// Creates a change description.
    public init(path: DatabasePath, after: JSONValue, writtenPaths: [DatabasePath], overwritten: [Overwritten]) {
        self.path = path
        self.after = after
        self.writtenPaths = writtenPaths
        self.overwritten = overwritten
    }

    /// The value at ``path`` before the write (`null` when absent).
    ///
    /// Computed on each access from ``after`` and ``overwritten``; cheap for set/delete/push,
    /// proportional to the objects along the written paths for updates.
    public var before: JSONValue {
        Self.undo(overwritten, from: after, at: path)
    }

    /// Whether the write changed any data.
    public var changed: Bool {
        overwritten.contains { entry in
            guard let relative = path.relativePath(to: entry.path) else { return true }
            return DatabaseTree.storedValue(in: after, at: relative) != entry.value
        }
    }

    /// Whether a write here can change data at `location` (one contains the other).
    public func affects(_ location: DatabasePath) -> Bool {
        writtenPaths.contains { $0.overlaps(location) }
    }

    /// The value at `location` after the write; `nil` when `location` is not at or below ``path``.
    public func after(at location: DatabasePath) -> JSONValue? {
        path.relativePath(to: location).map { DatabaseTree.storedValue(in: after, at: $0) }
    }

    /// The value at any `location` before the write, given the tree right after it.
    ///
    /// - Parameter treeAfterWrite: the tree as this write left it (no later writes applied).
    public func before(at location: DatabasePath, in treeAfterWrite: DatabaseTree) -> JSONValue {
        let current = after(at: location) ?? treeAfterWrite.storedValue(at: location)
        return Self.undo(overwritten, from: current, at: location)
    }

    /// Puts the overwritten values back into `value`, the data at `location` after the write.
    static func undo(_ entries: [Overwritten], from value: JSONValue, at location: DatabasePath) -> JSONValue {
        var value = value
        for entry in entries.reversed() {
            if let relative = location.relativePath(to: entry.path) {
                DatabaseTree.replace(in: &value, segments: relative.segments[...], with: entry.value)
            } else if let relative = entry.path.relativePath(to: location) {
                value = DatabaseTree.storedValue(in: entry.value, at: relative)
            }
        }
        return value
    }
}
