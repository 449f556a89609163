import Foundation
import CloudFunctions

/// The data of one emulated Realtime Database, as a JSON tree in storage form.
///
/// Storage form is what the database keeps: no `null` members, no empty objects (a node
/// without children does not exist) and no arrays (written arrays become objects keyed
/// `"0"`, `"1"`, ...). Reads through ``value(at:)`` render index-keyed objects back as arrays
/// (see ``rendered(_:)``). Writes mutate the tree in place along the written path only.
package struct DatabaseTree: Sendable, Hashable {
    /// The whole database in storage form; `null` when empty.
    public internal(set) var root: JSONValue

    /// An empty database.
    public init() {
        root = .null
    }

    /// A database holding `value` (normalised as if written at the root).
    ///
    /// - Parameter now: the time server values (`{".sv": "timestamp"}`) resolve to.
    /// - Throws: `ServiceError.invalidArgument` when `value` is not valid database data.
    public init(_ value: JSONValue, now: Date) throws(ServiceError) {
        root = .null
        _ = try set(value, at: .root, now: now)
    }

    /// Whether the database holds no data.
    public var isEmpty: Bool { root.isNull }

    /// The value at `path` as the REST API returns it (arrays rendered); `null` when absent.
    public func value(at path: DatabasePath) -> JSONValue {
        Self.rendered(storedValue(at: path))
    }

    /// The value at `path` in storage form; `null` when absent.
    public func storedValue(at path: DatabasePath) -> JSONValue {
        Self.storedValue(in: root, at: path)
    }

    /// The ETag of the value at `path` (see ``DatabaseETag``).
    public func etag(at path: DatabasePath) -> String {
        DatabaseETag.etag(of: storedValue(at: path))
    }

    /// The value at `path` below `value`; `null` when absent or when a primitive is in the way.
    public static func storedValue(in value: JSONValue, at path: DatabasePath) -> JSONValue {
        var node = value
        for segment in path.segments {
            guard case .object(let children) = node, let child = children[segment] else { return .null }
            node = child
        }
        return node
    }

    /// Replaces the node at `segments` below `node` with `value`, in place.
    ///
    /// Objects along the way are created as needed (a primitive in the way is replaced); `null`
    /// results are removed from their parent, and parents left empty are removed in turn.
    /// `value` must be in storage form.
    /// - Returns: what was displaced and where: normally the old node at `segments` (`depth` =
    ///   `segments.endIndex`), or a primitive at a shallower depth that gave way to an object.
    @discardableResult
    static func replace(in node: inout JSONValue, segments: ArraySlice<String>, with value: JSONValue)
        -> (value: JSONValue, depth: Int)
    {
        guard let key = segments.first else {
            let old = node
            node = value
            return (old, segments.startIndex)
        }
        var children: [String: JSONValue]
        var displaced: JSONValue = .null
        if case .object(let existing) = node {
            children = existing
            node = .null  // drop the second reference so `children` is mutated without a copy
        } else {
            if value.isNull { return (.null, segments.endIndex) }  // deleting below a primitive or nothing
            displaced = node
            children = [:]
        }
        let old = replace(in: &children[key, default: .null], segments: segments.dropFirst(), with: value)
        if value.isNull, children[key]?.isNull ?? false {
            children.removeValue(forKey: key)
        }
        node = children.isEmpty ? .null : .object(children)
        return displaced.isNull ? old : (displaced, segments.startIndex)
    }
}
