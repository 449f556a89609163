import CloudFunctions
import Foundation

/// A Realtime Database REST query: ordering, range filters, limits, or `shallow`.
///
/// Build it from the request's query parameters with ``init(parameters:)`` and apply it to the
/// stored value at the requested location with ``apply(to:)``.
package struct DatabaseQuery: Sendable, Hashable {
    /// What children are ordered by.
    public enum Ordering: Sendable, Hashable {
        /// `"$key"`.
        case key
        /// `"$value"`.
        case value
        /// `"$priority"`; priorities are not stored, so this orders by key.
        case priority
        /// A child path such as `"age"` or `"address/city"`.
        case child(DatabasePath)
    }

    /// One end of a range filter.
    public struct Bound: Sendable, Hashable {
        /// The value (for `$key` ordering, a string key).
        public var value: JSONValue
        /// Whether children equal to `value` are included (`startAt`/`endAt`/`equalTo`) or not
        /// (`startAfter`/`endBefore`).
        public var inclusive: Bool

        /// Creates a bound.
        public init(value: JSONValue, inclusive: Bool) {
            self.value = value
            self.inclusive = inclusive
        }
    }

    /// The `orderBy` parameter; `nil` when absent.
    public var ordering: Ordering?
    /// The lower bound from `startAt`, `startAfter` or `equalTo`.
    public var start: Bound?
    /// The upper bound from `endAt`, `endBefore` or `equalTo`.
    public var end: Bound?
    /// `limitToFirst`.
    public var limitToFirst: Int?
    /// `limitToLast`.
    public var limitToLast: Int?
    /// `shallow=true`.
    public var shallow: Bool

    /// A query that returns the value unchanged.
    public init(
        ordering: Ordering? = nil, start: Bound? = nil, end: Bound? = nil, limitToFirst: Int? = nil,
        limitToLast: Int? = nil, shallow: Bool = false
    ) {
        self.ordering = ordering
        self.start = start
        self.end = end
        self.limitToFirst = limitToFirst
        self.limitToLast = limitToLast
        self.shallow = shallow
    }

    /// Whether the query leaves the value unchanged (no ordering, filter, limit or shallow).
    public var isPlainRead: Bool {
        ordering == nil && start == nil && end == nil && limitToFirst == nil && limitToLast == nil && !shallow
    }

    /// Whether the query selects children (a range or a limit), so a primitive reads as `null`.
    public var filtersChildren: Bool {
        start != nil || end != nil || limitToFirst != nil || limitToLast != nil
    }
}

extension DatabaseQuery {
    /// The query's result for `value`, the data at the queried location.
    ///
    /// - Shallow: primitives as they are, objects with every child replaced by `true`.
    /// - With `orderBy`: the children in range, ordered, then limited, returned as an object
    ///   (clients re-sort; `null` when nothing is left). A primitive reads as `null` when the
    ///   query has a range or limit, else as itself.
    /// - Otherwise the value as the REST API renders it.
    /// - Parameter value: storage form or rendered form (arrays are read as index-keyed objects).
    public func apply(to value: JSONValue) -> JSONValue {
        if shallow { return Self.shallowValue(of: value) }
        guard let ordering else { return DatabaseTree.rendered(value) }
        guard let members = Self.members(of: value) else { return filtersChildren ? .null : value }
        var entries: [(key: String, sortValue: JSONValue, member: JSONValue)] = []
        entries.reserveCapacity(members.count)
        for (key, member) in members {
            let sortValue = Self.sortValue(key: key, member: member, ordering: ordering)
            if isInRange(sortValue, ordering: ordering) { entries.append((key, sortValue, member)) }
        }
        if limitToFirst != nil || limitToLast != nil {
            entries.sort { lhs, rhs in
                let order = ordering == .key ? 0 : DatabaseSortOrder.compareValues(lhs.sortValue, rhs.sortValue)
                return order != 0 ? order < 0 : DatabaseSortOrder.compareKeys(lhs.key, rhs.key) < 0
            }
            if let limitToFirst, entries.count > limitToFirst { entries.removeLast(entries.count - limitToFirst) }
            if let limitToLast, entries.count > limitToLast { entries.removeFirst(entries.count - limitToLast) }
        }
        guard !entries.isEmpty else { return .null }
        var result: [String: JSONValue] = [:]
        result.reserveCapacity(entries.count)
        for entry in entries { result[entry.key] = DatabaseTree.rendered(entry.member) }
        return .object(result)
    }

    /// Whether a child with this sort value passes the range filter.
    private func isInRange(_ sortValue: JSONValue, ordering: Ordering) -> Bool {
        if let start {
            let order = Self.compare(sortValue, start.value, ordering: ordering)
            if order < 0 || (order == 0 && !start.inclusive) { return false }
        }
        if let end {
            let order = Self.compare(sortValue, end.value, ordering: ordering)
            if order > 0 || (order == 0 && !end.inclusive) { return false }
        }
        return true
    }

    /// Compares a child's sort value with a bound.
    private static func compare(_ sortValue: JSONValue, _ bound: JSONValue, ordering: Ordering) -> Int {
        if ordering == .key, case .string(let key) = sortValue, case .string(let boundKey) = bound {
            return DatabaseSortOrder.compareKeys(key, boundKey)
        }
        return DatabaseSortOrder.compareValues(sortValue, bound)
    }

    /// What a child is ordered by: its key (as a string), its value, its priority or a descendant.
    private static func sortValue(key: String, member: JSONValue, ordering: Ordering) -> JSONValue {
        switch ordering {
        case .key: .string(key)
        case .value: member
        case .priority: .null
        case .child(let path): DatabaseTree.storedValue(in: member, at: path)
        }
    }

    /// The children of an object, or of an array as index-keyed members; `nil` for primitives.
    private static func members(of value: JSONValue) -> [String: JSONValue]? {
        switch value {
        case .object(let members): return members
        case .array(let elements):
            var members: [String: JSONValue] = [:]
            for (index, element) in elements.enumerated() where !element.isNull { members[String(index)] = element }
            return members
        default: return nil
        }
    }

    /// The `shallow=true` form of a value.
    static func shallowValue(of value: JSONValue) -> JSONValue {
        guard let members = members(of: value) else { return value }
        guard !members.isEmpty else { return .null }
        return .object(members.mapValues { _ in .bool(true) })
    }
}
