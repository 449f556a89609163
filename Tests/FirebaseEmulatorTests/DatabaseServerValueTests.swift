import Foundation
import CloudFunctions
import Testing

@testable import FirebaseEmulator

@Suite("DatabaseTree server values")
struct DatabaseServerValueTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000.1239)

    @Test("timestamp resolves to whole milliseconds of now")
    func timestamp() throws {
        var tree = DatabaseTree()
        let value: JSONValue = ["at": [".sv": "timestamp"], "list": [[".sv": "timestamp"]]]
        let change = try tree.set(value, at: .root, now: Self.now)
        #expect(change.after == ["at": 1_700_000_000_123, "list": ["0": 1_700_000_000_123]])
    }

    @Test("increment adds to numbers and replaces anything else", arguments: [
        (JSONValue.number(5), 2.0, JSONValue.number(7)),
        (.number(1.5), 0.25, .number(1.75)),
        (.null, 3, .number(3)),
        (.string("x"), 3, .number(3)),
        (["deep": 1], -1, .number(-1)),
        (.number(10), -10, .number(0)),
    ] as [(JSONValue, Double, JSONValue)])
    func increment(current: JSONValue, delta: Double, expected: JSONValue) throws {
        var tree = try DatabaseTree(["n": current], now: Self.now)
        _ = try tree.set([".sv": ["increment": .number(delta)]], at: DatabasePath("n"), now: Self.now)
        #expect(tree.value(at: try DatabasePath("n")) == expected)
    }

    @Test("increment works on missing values, in nested data and in updates")
    func incrementInContext() throws {
        var tree = try DatabaseTree(["stats": ["views": 10]], now: Self.now)
        _ = try tree.update(
            ["stats/views": [".sv": ["increment": 1]], "stats/likes": [".sv": ["increment": 1]]],
            at: .root, now: Self.now)
        _ = try tree.set(["views": [".sv": ["increment": 5]], "fresh": ["x": [".sv": ["increment": 2]]]],
            at: DatabasePath("stats"), now: Self.now)
        #expect(tree.root == ["stats": ["views": 16, "fresh": ["x": 2]]])
    }

    @Test("rejects unknown server values", arguments: [
        [".sv": "now"], [".sv": ["increment": "1"]], [".sv": ["decrement": 1]], [".sv": "timestamp", "x": 1],
        [".sv": ["increment": 1, "by": 2]],
    ] as [JSONValue])
    func rejectsUnknown(value: JSONValue) {
        var tree = DatabaseTree()
        #expect(throws: ServiceError.self) { try tree.set(value, at: .root, now: Self.now) }
    }
}
