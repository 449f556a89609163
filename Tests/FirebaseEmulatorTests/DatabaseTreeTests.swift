import Foundation
import CloudFunctions
import Testing

@testable import FirebaseEmulator

@Suite("DatabaseTree reads, sets, deletes and pushes")
struct DatabaseTreeTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000.123)

    static func path(_ text: String) -> DatabasePath {
        (try? DatabasePath(text)) ?? .root
    }

    @Test("reads null for missing locations and below primitives")
    func readsMissing() throws {
        let tree = try DatabaseTree(["a": ["b": 1], "s": "text"], now: Self.now)
        #expect(tree.value(at: Self.path("a/b")) == 1)
        #expect(tree.value(at: Self.path("a/x")) == .null)
        #expect(tree.value(at: Self.path("s/deeper")) == .null)
        #expect(DatabaseTree().value(at: .root) == .null)
    }

    @Test("set replaces the subtree and reports before and after")
    func setReplaces() throws {
        var tree = try DatabaseTree(["users": ["u1": ["name": "a", "age": 3]]], now: Self.now)
        let change = try tree.set(["name": "b"], at: Self.path("users/u1"), now: Self.now)
        #expect(change.path == Self.path("users/u1"))
        #expect(change.before == ["name": "a", "age": 3])
        #expect(change.after == ["name": "b"])
        #expect(change.changed)
        #expect(tree.root == ["users": ["u1": ["name": "b"]]])
    }

    @Test("set creates intermediate objects and replaces a primitive in the way")
    func setCreates() throws {
        var tree = try DatabaseTree(["a": 5], now: Self.now)
        let change = try tree.set("x", at: Self.path("a/b/c"), now: Self.now)
        #expect(change.before == .null)
        #expect(change.changed)
        #expect(change.overwritten == [.init(path: Self.path("a"), value: 5)])
        #expect(change.before(at: .root, in: tree) == ["a": 5])
        #expect(change.before(at: Self.path("a/b"), in: tree) == .null)
        #expect(tree.root == ["a": ["b": ["c": "x"]]])
    }

    @Test("set null deletes and removes empty ancestors")
    func setNullDeletes() throws {
        var tree = try DatabaseTree(["a": ["b": ["c": 1]], "k": true], now: Self.now)
        let change = try tree.set(nil, at: Self.path("a/b/c"), now: Self.now)
        #expect(change.before == 1)
        #expect(change.after == .null)
        #expect(tree.root == ["k": true])
        _ = tree.delete(at: Self.path("k"))
        #expect(tree.root == .null)
        #expect(tree.isEmpty)
    }

    @Test("deleting below a primitive or a missing node changes nothing")
    func deleteMissing() throws {
        var tree = try DatabaseTree(["a": 5], now: Self.now)
        let change = tree.delete(at: Self.path("a/b"))
        #expect(!change.changed)
        #expect(tree.root == ["a": 5])
        _ = tree.delete(at: Self.path("zzz/y"))
        #expect(tree.root == ["a": 5])
    }

    @Test("writing an empty object or all-null object deletes")
    func emptyWritesDelete() throws {
        var tree = try DatabaseTree(["a": 1, "b": 2], now: Self.now)
        _ = try tree.set([:], at: Self.path("a"), now: Self.now)
        _ = try tree.set(["x": nil, "y": ["z": [:]]], at: Self.path("b"), now: Self.now)
        #expect(tree.root == .null)
    }

    @Test("stores arrays as index-keyed objects and renders them back")
    func arrays() throws {
        var tree = DatabaseTree()
        _ = try tree.set(["list": ["a", "b", ["c": "d"]]], at: .root, now: Self.now)
        #expect(tree.root == ["list": ["0": "a", "1": "b", "2": ["c": "d"]]])
        #expect(tree.value(at: Self.path("list")) == ["a", "b", ["c": "d"]])
        _ = try tree.set(nil, at: Self.path("list/1"), now: Self.now)
        #expect(tree.value(at: Self.path("list")) == ["a", nil, ["c": "d"]])
        _ = try tree.set(["x", nil, "z"], at: Self.path("sparse"), now: Self.now)
        #expect(tree.storedValue(at: Self.path("sparse")) == ["0": "x", "2": "z"])
    }

    @Test("renders an object as an array only when more than half the slots are filled", arguments: [
        (["0": "a", "1": "b"], ["a", "b"]),
        (["0": "a", "3": "b"], ["a", nil, nil, "b"]),
        (["0": "a", "4": "b"], ["0": "a", "4": "b"]),
        (["1": "x"], [nil, "x"]),
        (["2": "x"], ["2": "x"]),
        (["0": "a", "01": "b"], ["0": "a", "01": "b"]),
        (["0": "a", "-1": "b"], ["0": "a", "-1": "b"]),
        (["0": "a", "x": "b"], ["0": "a", "x": "b"]),
        (["foo": ["0": "a", "1": "b"]], ["foo": ["a", "b"]]),
        (["length": 3, "foo": "bar"], ["length": 3, "foo": "bar"]),
        (["0": ["0": 1]], [[1]]),
    ] as [(JSONValue, JSONValue)])
    func renders(stored: JSONValue, rendered: JSONValue) {
        #expect(DatabaseTree.rendered(stored) == rendered)
    }

    @Test("keeps values as the SDK snapshot tests expect", arguments: [
        (["b": 23, "a": nil], ["b": 23]),
        (["myKey": nil], nil),
        ([:], nil),
        (["myKey": [:]], nil),
        ([], nil),
        (["myKey": [nil]], nil),
        (0, 0),
        (["myKey": 0], ["myKey": 0]),
    ] as [(JSONValue, JSONValue)])
    func normalises(written: JSONValue, read: JSONValue) throws {
        let tree = try DatabaseTree(written, now: Self.now)
        #expect(tree.value(at: .root) == read)
    }

    @Test("push stores the value under the id and reports the child path")
    func push() throws {
        var tree = DatabaseTree()
        let change = try tree.push("", at: Self.path("msgs"), id: "-Nabc", now: Self.now)
        #expect(change.path == Self.path("msgs/-Nabc"))
        #expect(change.path.key == "-Nabc")
        #expect(tree.root == ["msgs": ["-Nabc": ""]])
        #expect(throws: ServiceError.self) { try tree.push(1, at: .root, id: "bad.id", now: Self.now) }
    }

    @Test("rejects invalid data without changing the tree", arguments: [
        ["a.b": 1],
        ["ok": ["$x": 1]],
        ["ok": ["": 1]],
        [".foo": 1],
        ["x": ["a/b": 1]],
        ["n": .number(.infinity)],
        ["n": .number(.nan)],
    ] as [JSONValue])
    func rejectsInvalid(value: JSONValue) throws {
        var tree = try DatabaseTree(["keep": 1], now: Self.now)
        #expect(throws: ServiceError.self) { try tree.set(value, at: Self.path("w"), now: Self.now) }
        #expect(tree.root == ["keep": 1])
    }

    @Test("reports key and data errors with the documented texts")
    func errorTexts() {
        var tree = DatabaseTree()
        #expect(throws: ServiceError(.invalidArgument, 
            "Invalid key: a.b. Keys must not contain '/', '.', '#', '$', '[', or ']'")
        ) { try tree.set(["a.b": 1], at: .root, now: Self.now) }
        #expect(throws: ServiceError(.invalidArgument, "Invalid data; numbers must be finite")) {
            try tree.set(.number(-.infinity), at: .root, now: Self.now)
        }
    }

    @Test("limits depth to 32 levels counting the path")
    func depthLimit() throws {
        var tree = DatabaseTree()
        var value: JSONValue = "leaf"
        for _ in 0..<30 { value = ["k": value] }
        _ = try tree.set(value, at: Self.path("a/b"), now: Self.now)  // leaf at depth 32
        #expect(throws: ServiceError(.invalidArgument, 
            "Invalid data; data is nested deeper than the maximum of 32 levels")
        ) { try tree.set(value, at: Self.path("a/b/c"), now: Self.now) }
    }

    @Test("limits strings to 10 MB of UTF-8")
    func stringLimit() throws {
        var tree = DatabaseTree()
        let largest = String(repeating: "x", count: DatabaseTree.maximumStringLength)
        _ = try tree.set(.string(largest), at: Self.path("s"), now: Self.now)
        #expect(throws: ServiceError.self) { try tree.set(.string(largest + "y"), at: Self.path("s"), now: Self.now) }
    }

    @Test("accepts priority objects and keeps only the value")
    func priorities() throws {
        var tree = DatabaseTree()
        _ = try tree.set([".value": "v", ".priority": 3], at: Self.path("p"), now: Self.now)
        _ = try tree.set(["a": 1, ".priority": "high"], at: Self.path("q"), now: Self.now)
        _ = try tree.set([".priority": 1], at: Self.path("r"), now: Self.now)
        #expect(tree.root == ["p": "v", "q": ["a": 1]])
        #expect(throws: ServiceError.self) { try tree.set([".value": 1, "x": 2], at: Self.path("p"), now: Self.now) }
    }

    @Test("answers before values at ancestors from the tree after the write")
    func beforeAtAncestor() throws {
        var tree = try DatabaseTree(["users": ["u1": ["n": 1], "u2": ["n": 2]]], now: Self.now)
        let change = try tree.set(["n": 9], at: Self.path("users/u1"), now: Self.now)
        #expect(change.before(at: Self.path("users"), in: tree) == ["u1": ["n": 1], "u2": ["n": 2]])
        #expect(change.before(at: Self.path("users/u1/n"), in: tree) == 1)
        #expect(change.before(at: Self.path("users/u2"), in: tree) == ["n": 2])
        #expect(change.after(at: Self.path("users/u1/n")) == 9)
        #expect(change.after(at: Self.path("users")) == nil)
        #expect(change.affects(Self.path("users")) && change.affects(Self.path("users/u1/n")))
        #expect(!change.affects(Self.path("users/u2")))
    }
}
