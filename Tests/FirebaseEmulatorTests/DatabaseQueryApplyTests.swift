import Foundation
import CloudFunctions
import Testing

@testable import FirebaseEmulator

@Suite("DatabaseQuery results")
struct DatabaseQueryApplyTests {
    static let mixed: JSONValue = [
        "n1": 1, "n2": 2.5, "s1": "apple", "s2": "banana", "t": true, "f": false, "o": ["x": 1], "o2": ["y": 2],
    ]

    static func query(_ parameters: [String: String]) throws -> DatabaseQuery {
        try DatabaseQuery(parameters: parameters)
    }

    static func keys(_ value: JSONValue) -> Set<String> {
        Set(value.objectValue?.keys.map { $0 } ?? [])
    }

    @Test("orders mixed values: false < true < numbers < strings < objects, ties by key")
    func valueOrdering() throws {
        let entries = (Self.mixed.objectValue ?? [:]).sorted { lhs, rhs in
            let order = DatabaseSortOrder.compareValues(lhs.value, rhs.value)
            return order != 0 ? order < 0 : DatabaseSortOrder.keyPrecedes(lhs.key, rhs.key)
        }
        #expect(entries.map(\.key) == ["f", "t", "n1", "n2", "s1", "s2", "o", "o2"])
        #expect(DatabaseSortOrder.valuePrecedes(.null, false))
        #expect(!DatabaseSortOrder.valuePrecedes(["a": 1], ["b": 0]))
    }

    @Test("orders keys: 32-bit integers numerically first, then strings")
    func keyOrdering() {
        let keys = ["b", "10", "a", "2", "-5", "01", "1", "2147483648", "A", "9999999999", "-"]
        let sorted = keys.sorted(by: DatabaseSortOrder.keyPrecedes)
        #expect(sorted == ["-5", "1", "01", "2", "10", "-", "2147483648", "9999999999", "A", "a", "b"])
    }

    @Test("limits by value order: first and last")
    func valueLimits() throws {
        #expect(Self.keys(try Self.query(["orderBy": "\"$value\"", "limitToFirst": "3"]).apply(to: Self.mixed))
            == ["f", "t", "n1"])
        #expect(Self.keys(try Self.query(["orderBy": "\"$value\"", "limitToLast": "3"]).apply(to: Self.mixed))
            == ["s2", "o", "o2"])
        #expect(try Self.query(["orderBy": "\"$value\"", "limitToLast": "0"]).apply(to: Self.mixed) == .null)
        #expect(try Self.query(["orderBy": "\"$value\"", "limitToFirst": "100"]).apply(to: Self.mixed) == Self.mixed)
    }

    @Test("filters ranges by value, inclusive and exclusive")
    func valueRanges() throws {
        let numbers = try Self.query(["orderBy": "\"$value\"", "startAt": "1", "endAt": "2.5"])
        #expect(Self.keys(numbers.apply(to: Self.mixed)) == ["n1", "n2"])
        let afterOne = try Self.query(["orderBy": "\"$value\"", "startAfter": "1", "endBefore": "\"banana\""])
        #expect(Self.keys(afterOne.apply(to: Self.mixed)) == ["n2", "s1"])
        let strings = try Self.query(["orderBy": "\"$value\"", "startAt": "\"\""])
        #expect(Self.keys(strings.apply(to: Self.mixed)) == ["s1", "s2", "o", "o2"])
        let booleans = try Self.query(["orderBy": "\"$value\"", "endAt": "true"])
        #expect(Self.keys(booleans.apply(to: Self.mixed)) == ["f", "t"])
        let equal = try Self.query(["orderBy": "\"$value\"", "equalTo": "\"apple\""])
        #expect(equal.apply(to: Self.mixed) == ["s1": "apple"])
    }

    @Test("orders by a child path with missing children first")
    func childOrdering() throws {
        let users: JSONValue = [
            "a": ["age": 30, "address": ["city": "Oslo"]], "b": ["age": 18], "c": ["name": "no age"],
            "d": ["age": 25, "address": ["city": "Bergen"]], "e": "primitive",
        ]
        let adults = try Self.query(["orderBy": "\"age\"", "startAt": "18", "endAt": "30", "limitToFirst": "2"])
        #expect(adults.apply(to: users) == ["b": ["age": 18], "d": ["age": 25, "address": ["city": "Bergen"]]])
        let missing = try Self.query(["orderBy": "\"age\"", "limitToFirst": "2"])
        #expect(Self.keys(missing.apply(to: users)) == ["c", "e"])
        let city = try Self.query(["orderBy": "\"address/city\"", "equalTo": "\"Oslo\""])
        #expect(Self.keys(city.apply(to: users)) == ["a"])
    }

    @Test("filters and limits by key with key ordering")
    func keyQueries() throws {
        let value: JSONValue = ["1": "x", "2": "y", "10": "z", "a": "w", "b": "v"]
        let range = try Self.query(["orderBy": "\"$key\"", "startAt": "\"2\"", "endAt": "\"a\""])
        #expect(Self.keys(range.apply(to: value)) == ["2", "10", "a"])
        #expect(Self.keys(try Self.query(["orderBy": "\"$key\"", "limitToFirst": "2"]).apply(to: value)) == ["1", "2"])
        #expect(Self.keys(try Self.query(["orderBy": "\"$key\"", "limitToLast": "2"]).apply(to: value)) == ["a", "b"])
        #expect(try Self.query(["orderBy": "\"$key\"", "equalTo": "\"10\""]).apply(to: value) == ["10": "z"])
    }

    @Test("orders by priority as by key, since priorities are not stored")
    func priorityQueries() throws {
        let value: JSONValue = ["b": 1, "a": 2, "c": 3]
        #expect(Self.keys(try Self.query(["orderBy": "\"$priority\"", "limitToFirst": "2"]).apply(to: value))
            == ["a", "b"])
    }

    @Test("returns results as objects, renders values inside, and reads arrays as objects")
    func resultShape() throws {
        let list: JSONValue = ["0": "a", "1": "b", "2": ["0": 1]]
        let result = try Self.query(["orderBy": "\"$key\"", "limitToFirst": "3"]).apply(to: list)
        #expect(result == ["0": "a", "1": "b", "2": [1]])
        let fromArray = try Self.query(["orderBy": "\"$value\"", "limitToLast": "1"]).apply(to: ["x", "y"])
        #expect(fromArray == ["1": "y"])
    }

    @Test("reads primitives as null under a filter and as themselves otherwise")
    func primitives() throws {
        #expect(try Self.query(["orderBy": "\"$value\"", "limitToFirst": "1"]).apply(to: 5) == .null)
        #expect(try Self.query(["orderBy": "\"$value\""]).apply(to: 5) == 5)
        #expect(try Self.query(["orderBy": "\"$value\"", "limitToFirst": "1"]).apply(to: .null) == .null)
    }

    @Test("without orderBy returns the rendered value")
    func plainRead() throws {
        #expect(try Self.query([:]).apply(to: ["0": "a", "1": "b"]) == ["a", "b"])
    }

    @Test("shallow replaces children with true and keeps primitives", arguments: [
        (JSONValue.number(3), JSONValue.number(3)),
        ("s", "s"),
        (nil, nil),
        (["a": ["deep": 1], "b": "x"], ["a": true, "b": true]),
        (["0": "a", "1": "b"], ["0": true, "1": true]),
    ] as [(JSONValue, JSONValue)])
    func shallow(value: JSONValue, expected: JSONValue) throws {
        #expect(try Self.query(["shallow": "true"]).apply(to: value) == expected)
    }
}
