import Foundation
import CloudFunctions
import Testing

@testable import FirebaseEmulator

@Suite("DatabaseTree multi-path updates")
struct DatabaseTreeUpdateTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func path(_ text: String) -> DatabasePath {
        (try? DatabasePath(text)) ?? .root
    }

    @Test("merges named children and leaves the others alone")
    func shallowMerge() throws {
        var tree = try DatabaseTree(["u": ["name": "x", "age": 1, "tags": ["a": true]]], now: Self.now)
        let change = try tree.update(["name": "y", "tags": ["b": true]], at: Self.path("u"), now: Self.now)
        #expect(tree.root == ["u": ["name": "y", "age": 1, "tags": ["b": true]]])
        #expect(change.path == Self.path("u"))
        #expect(change.before == ["name": "x", "age": 1, "tags": ["a": true]])
        #expect(change.after == ["name": "y", "age": 1, "tags": ["b": true]])
        #expect(Set(change.writtenPaths) == [Self.path("u/name"), Self.path("u/tags")])
    }

    @Test("writes deep multi-path keys and deletes with null")
    func multiPath() throws {
        var tree = try DatabaseTree(["users": ["u1": ["name": "a", "age": 3]], "count": 1], now: Self.now)
        let change = try tree.update(
            ["users/u1/name": "b", "users/u2/name": "c", "count": nil, "/extra//deep/": 1], at: .root, now: Self.now)
        #expect(tree.root == ["users": ["u1": ["name": "b", "age": 3], "u2": ["name": "c"]], "extra": ["deep": 1]])
        #expect(change.before == ["users": ["u1": ["name": "a", "age": 3]], "count": 1])
        #expect(change.after == tree.root)
        #expect(change.before(at: Self.path("users/u1"), in: tree) == ["name": "a", "age": 3])
    }

    @Test("removes ancestors emptied by deletes, above the update location too")
    func emptiesAncestors() throws {
        var tree = try DatabaseTree(["a": ["b": ["c": 1, "d": 2]], "k": 0], now: Self.now)
        let change = try tree.update(["c": nil, "d": nil], at: Self.path("a/b"), now: Self.now)
        #expect(tree.root == ["k": 0])
        #expect(change.after == .null)
    }

    @Test("reconstructs the before value when primitives gave way to objects")
    func displacedPrimitives() throws {
        var tree = try DatabaseTree(["a": 5, "s": "x", "k": ["z": 1]], now: Self.now)
        let change = try tree.update(["a/b": 1, "a/c": 2, "s/t/u": 3, "k/z": nil, "k/n": nil], at: .root, now: Self.now)
        #expect(tree.root == ["a": ["b": 1, "c": 2], "s": ["t": ["u": 3]]])
        #expect(change.before == ["a": 5, "s": "x", "k": ["z": 1]])
        #expect(change.changed)
        #expect(change.before(at: Self.path("a/b"), in: tree) == .null)
        #expect(change.before(at: Self.path("s"), in: tree) == "x")
        let noop = try tree.update(["a/b": 1, "missing/x": nil], at: .root, now: Self.now)
        #expect(!noop.changed)
        #expect(noop.before == noop.after)
    }

    @Test("reports before values below the update location for triggers")
    func beforeBelow() throws {
        var tree = try DatabaseTree(["users": ["u1": ["n": 1, "m": 2], "u2": ["n": 2]]], now: Self.now)
        let change = try tree.update(["u1/n": 5, "u2": nil], at: Self.path("users"), now: Self.now)
        #expect(change.before(at: Self.path("users/u1"), in: tree) == ["n": 1, "m": 2])
        #expect(change.after(at: Self.path("users/u1")) == ["n": 5, "m": 2])
        #expect(change.before(at: Self.path("users/u2/n"), in: tree) == 2)
        #expect(change.after(at: Self.path("users/u2")) == .null)
        #expect(change.before(at: .root, in: tree) == ["users": ["u1": ["n": 1, "m": 2], "u2": ["n": 2]]])
    }

    @Test("rejects overlapping paths", arguments: [
        ["a": 1, "a/b": 2],
        ["a/b/c": 1, "a/b": 2],
        ["a": 1, "/a/": 2],
        ["x/y": 1, "x": ["y": 2]],
    ] as [[String: JSONValue]])
    func overlap(values: [String: JSONValue]) throws {
        var tree = try DatabaseTree(["keep": 1], now: Self.now)
        #expect(throws: ServiceError.self) { try tree.update(values, at: .root, now: Self.now) }
        #expect(tree.root == ["keep": 1])
    }

    @Test("words the overlap error with both paths")
    func overlapText() {
        var tree = DatabaseTree()
        #expect(throws: ServiceError(.invalidArgument, "Invalid data; update paths /a and /a/b overlap")) {
            try tree.update(["a": 1, "a/b": 2], at: .root, now: Self.now)
        }
    }

    @Test("accepts siblings sharing a prefix")
    func siblingPrefixes() throws {
        var tree = DatabaseTree()
        _ = try tree.update(["a": 1, "ab": 2, "a-b/c": 3], at: .root, now: Self.now)
        #expect(tree.root == ["a": 1, "ab": 2, "a-b": ["c": 3]])
    }

    @Test("is all or nothing when a value is invalid")
    func atomic() throws {
        var tree = try DatabaseTree(["a": 1], now: Self.now)
        #expect(throws: ServiceError.self) { try tree.update(["a": 2, "b": ["x.y": 1]], at: .root, now: Self.now) }
        #expect(throws: ServiceError.self) { try tree.update(["a": 2, "b$": 1], at: .root, now: Self.now) }
        #expect(throws: ServiceError.self) { try tree.update(["": 2], at: .root, now: Self.now) }
        #expect(tree.root == ["a": 1])
    }

    @Test("an empty update changes nothing")
    func emptyUpdate() throws {
        var tree = try DatabaseTree(["a": 1], now: Self.now)
        let change = try tree.update([:], at: .root, now: Self.now)
        #expect(!change.changed)
        #expect(change.writtenPaths.isEmpty)
    }

    @Test("checks depth including the update location and key")
    func depth() throws {
        var tree = DatabaseTree()
        let base = try DatabasePath(Array(repeating: "k", count: 30).joined(separator: "/"))
        _ = try tree.update(["a/b": 1], at: base, now: Self.now)
        #expect(throws: ServiceError.self) { try tree.update(["a/b/c": 1], at: base, now: Self.now) }
        #expect(throws: ServiceError.self) { try tree.update(["a/b": ["c": 1]], at: base, now: Self.now) }
    }

    @Test("matches the SDK's before + delta merge cases")
    func applyChangeVectors() throws {
        let cases: [(before: JSONValue, delta: [String: JSONValue], after: JSONValue)] = [
            (["a": ["b": "foo", "c": 23, "d": 444], "d": ["e": 42]],
             ["a/b": "bar", "a/c": nil, "d": nil, "e": ["f": "g"]],
             ["a": ["b": "bar", "d": 444], "e": ["f": "g"]]),
            (["a": ["b": "c"]], ["a/d": "e"], ["a": ["b": "c", "d": "e"]]),
            (nil, ["a": "b"], ["a": "b"]),
        ]
        for item in cases {
            var tree = try DatabaseTree(item.before, now: Self.now)
            _ = try tree.update(item.delta, at: .root, now: Self.now)
            #expect(tree.root == item.after)
        }
    }
}
