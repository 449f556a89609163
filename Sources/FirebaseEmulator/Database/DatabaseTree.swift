import CloudFunctions
import Foundation

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

extension DatabaseTree {
    /// A stored value in the form the REST API returns it: objects whose keys are all array
    /// indices are rendered as arrays, at every level.
    ///
    /// An object is rendered as an array when every key is a canonical non-negative integer
    /// (`"0"`, `"7"`, not `"07"`) and the largest index is less than twice the number of keys
    /// (more than half of the slots are filled); missing slots become `null`.
    /// `{"0": "a", "3": "b"}` becomes `["a", null, null, "b"]`; `{"0": "a", "4": "b"}` stays an object.
    public static func rendered(_ value: JSONValue) -> JSONValue {
        renderedIfChanged(value) ?? value
    }

    /// The rendered value, or `nil` when rendering leaves `value` as it is (no allocation then).
    private static func renderedIfChanged(_ value: JSONValue) -> JSONValue? {
        guard case .object(let members) = value else { return nil }
        var changed: [String: JSONValue]?
        for (key, member) in members {
            guard let rendered = renderedIfChanged(member) else { continue }
            if changed == nil { changed = members }
            changed?[key] = rendered
        }
        let current = changed ?? members
        if let elements = arrayElements(current) { return .array(elements) }
        return changed.map(JSONValue.object)
    }

    /// The array an object renders as, or `nil` when it stays an object.
    static func arrayElements(_ members: [String: JSONValue]) -> [JSONValue]? {
        guard !members.isEmpty else { return nil }
        var maximum = 0
        for key in members.keys {
            guard let index = arrayIndex(key) else { return nil }
            maximum = max(maximum, index)
        }
        guard maximum < 2 * members.count else { return nil }
        var elements = [JSONValue](repeating: .null, count: maximum + 1)
        for (key, member) in members {
            if let index = arrayIndex(key) { elements[index] = member }
        }
        return elements
    }

    /// The index a key stands for: a canonical decimal in `0...Int32.max`.
    static func arrayIndex(_ key: String) -> Int? {
        let utf8 = key.utf8
        guard let first = utf8.first, utf8.count <= 10, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9"),
            first != UInt8(ascii: "0") || utf8.count == 1
        else { return nil }
        var result = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return result <= Int(Int32.max) ? result : nil
    }
}
