import Foundation
import CloudFunctions

extension DatabaseQuery {
    /// The query parameters that need `orderBy`.
    static let orderedParameterNames = ["startAt", "endAt", "equalTo", "startAfter", "endBefore", "limitToFirst",
        "limitToLast"]

    /// Parses the query parameters of a REST read (percent-decoded; other parameters such as
    /// `print`, `ns` or `auth` are ignored).
    ///
    /// `orderBy` and the range parameters are JSON (`orderBy="age"`, `startAt=18`,
    /// `equalTo="u1"`); limits are non-negative integers; `shallow` is `true` or `false`.
    /// - Throws: `ServiceError.invalidArgument` with the Realtime Database error text.
    public init(parameters: [String: String]) throws(ServiceError) {
        self.init()
        let ordered = Self.orderedParameterNames.filter { parameters[$0] != nil }
        if let shallowText = parameters["shallow"] {
            switch shallowText {
            case "true": shallow = true
            case "false": shallow = false
            default: throw DatabaseErrorMessage.invalidQuery("shallow must be true or false")
            }
            if shallow, parameters["orderBy"] != nil || !ordered.isEmpty {
                throw DatabaseErrorMessage.invalidQuery("shallow cannot be combined with other query parameters")
            }
        }
        guard let orderByText = parameters["orderBy"] else {
            if !ordered.isEmpty {
                throw DatabaseErrorMessage.invalidQuery(
                    "orderBy must be defined when other query parameters are defined")
            }
            return
        }
        let ordering = try Self.parseOrdering(orderByText)
        self.ordering = ordering
        limitToFirst = try Self.parseLimit(parameters["limitToFirst"], name: "limitToFirst")
        limitToLast = try Self.parseLimit(parameters["limitToLast"], name: "limitToLast")
        if limitToFirst != nil, limitToLast != nil {
            throw DatabaseErrorMessage.invalidQuery("limitToFirst and limitToLast cannot both be defined")
        }
        let bound = { (name: String) throws(ServiceError) -> JSONValue? in
            try parameters[name].map { (text) throws(ServiceError) in try Self.parseBound(text, ordering: ordering) }
        }
        let (startAt, startAfter, endAt, endBefore) = try (bound("startAt"), bound("startAfter"), bound("endAt"),
            bound("endBefore"))
        if let equalTo = try bound("equalTo") {
            guard startAt == nil, startAfter == nil, endAt == nil, endBefore == nil else {
                throw DatabaseErrorMessage.invalidQuery(
                    "equalTo cannot be combined with startAt, startAfter, endAt, or endBefore")
            }
            start = Bound(value: equalTo, inclusive: true)
            end = Bound(value: equalTo, inclusive: true)
            return
        }
        if startAt != nil, startAfter != nil {
            throw DatabaseErrorMessage.invalidQuery("startAt and startAfter cannot both be defined")
        }
        if endAt != nil, endBefore != nil {
            throw DatabaseErrorMessage.invalidQuery("endAt and endBefore cannot both be defined")
        }
        start = startAt.map { Bound(value: $0, inclusive: true) }
            ?? startAfter.map { Bound(value: $0, inclusive: false) }
        end = endAt.map { Bound(value: $0, inclusive: true) } ?? endBefore.map { Bound(value: $0, inclusive: false) }
    }

    /// Parses the JSON string of `orderBy`.
    static func parseOrdering(_ text: String) throws(ServiceError) -> Ordering {
        let invalid = DatabaseErrorMessage.invalidQuery("orderBy must be a valid JSON encoded path")
        guard case .string(let name)? = try? JSONValue(parsing: text) else { throw invalid }
        switch name {
        case "$key": return .key
        case "$value": return .value
        case "$priority": return .priority
        default:
            guard let path = try? DatabasePath(name), !path.isRoot else { throw invalid }
            return .child(path)
        }
    }

    /// Parses a limit: a non-negative decimal integer.
    static func parseLimit(_ text: String?, name: String) throws(ServiceError) -> Int? {
        guard let text else { return nil }
        guard let limit = Int(text), limit >= 0 else {
            throw DatabaseErrorMessage.invalidQuery("\(name) must be a non-negative integer")
        }
        return limit
    }

    /// Parses the JSON primitive of a range parameter.
    static func parseBound(_ text: String, ordering: Ordering) throws(ServiceError) -> JSONValue {
        guard let value = try? JSONValue(parsing: text) else {
            throw DatabaseErrorMessage.invalidQuery("Constraint index field must be a JSON primitive")
        }
        switch value {
        case .array, .object:
            throw DatabaseErrorMessage.invalidQuery("Constraint index field must be a JSON primitive")
        case .number(let number) where !number.isFinite:
            throw DatabaseErrorMessage.invalidQuery("Constraint index field must be a JSON primitive")
        case .string:
            return value
        case .null, .bool, .number:
            if ordering == .key {
                throw DatabaseErrorMessage.invalidQuery("Provided key index type is invalid, must be string")
            }
            return value
        }
    }
}
