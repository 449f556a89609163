import Foundation
import CloudFunctions

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
