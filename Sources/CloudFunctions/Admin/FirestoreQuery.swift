/// A query of one collection's documents: filters (all must hold), an order and a limit.
public struct FirestoreQuery: Sendable, Hashable {
    /// A condition on a field.
    public struct Filter: Sendable, Hashable {
        /// How the field compares with the value, by the service's operator names.
        public enum Operator: String, Sendable, Hashable {
            case lessThan = "LESS_THAN", lessThanOrEqual = "LESS_THAN_OR_EQUAL"
            case greaterThan = "GREATER_THAN", greaterThanOrEqual = "GREATER_THAN_OR_EQUAL"
            case equal = "EQUAL", notEqual = "NOT_EQUAL"
            case arrayContains = "ARRAY_CONTAINS", `in` = "IN", arrayContainsAny = "ARRAY_CONTAINS_ANY"
            case notIn = "NOT_IN"
        }

        public var field: String
        public var op: Operator
        public var value: FirestoreValue

        public init(_ field: String, _ op: Operator, _ value: FirestoreValue) {
            self.field = field
            self.op = op
            self.value = value
        }
    }

    /// A field path to order by.
    public struct Order: Sendable, Hashable {
        public var field: String
        public var descending: Bool

        public init(_ field: String, descending: Bool = false) {
            self.field = field
            self.descending = descending
        }
    }

    /// The collection's path (`gameScores`, or `players/ada/scores` for a subcollection).
    public var collection: String
    public var filters: [Filter]
    /// Field paths to order by, in turn.
    public var orderBy: [Order]
    public var limit: Int?

    /// Creates a query.
    public init(_ collection: String, where filters: [Filter] = [], orderBy: [Order] = [], limit: Int? = nil) {
        self.collection = collection
        self.filters = filters
        self.orderBy = orderBy
        self.limit = limit
    }
}
