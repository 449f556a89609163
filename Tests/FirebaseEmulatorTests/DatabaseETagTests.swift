import Foundation
import CloudFunctions
import Testing

@testable import FirebaseEmulator

@Suite("DatabaseETag")
struct DatabaseETagTests {
    @Test("is null_etag for a missing value")
    func missing() throws {
        #expect(DatabaseETag.etag(of: .null) == "null_etag")
        #expect(DatabaseTree().etag(at: try DatabasePath("a")) == "null_etag")
    }

    @Test("is 16 hex digits and deterministic regardless of insertion order")
    func deterministic() throws {
        let first = try JSONValue(parsing: #"{"a":1,"b":{"c":"x","d":[1,2]}}"#)
        let second = try JSONValue(parsing: #"{"b":{"d":[1,2],"c":"x"},"a":1}"#)
        let tag = DatabaseETag.etag(of: first)
        #expect(tag.count == 16)
        #expect(tag.allSatisfy { $0.isHexDigit })
        #expect(tag == DatabaseETag.etag(of: second))
    }

    @Test("differs for different values", arguments: [
        (JSONValue.number(1), JSONValue.string("1")),
        (.bool(true), .number(1)),
        (["a": "bc"], ["ab": "c"]),
        (["a": 1], ["a": 2]),
        (.string(""), .bool(false)),
        (.number(0), .bool(false)),
    ] as [(JSONValue, JSONValue)])
    func differs(lhs: JSONValue, rhs: JSONValue) {
        #expect(DatabaseETag.etag(of: lhs) != DatabaseETag.etag(of: rhs))
    }

    @Test("is the same for an array and its stored form")
    func arraysMatchStoredForm() throws {
        var tree = DatabaseTree()
        _ = try tree.set(["x", "y"], at: .root, now: Date(timeIntervalSince1970: 0))
        #expect(tree.etag(at: .root) == DatabaseETag.etag(of: ["x", "y"]))
        #expect(tree.etag(at: .root) == DatabaseETag.etag(of: tree.value(at: .root)))
    }

    @Test("changes when the tree changes and returns after an undo")
    func tracksWrites() throws {
        var tree = try DatabaseTree(["a": 1], now: Date(timeIntervalSince1970: 0))
        let original = tree.etag(at: .root)
        _ = try tree.set(2, at: DatabasePath("a"), now: Date(timeIntervalSince1970: 0))
        #expect(tree.etag(at: .root) != original)
        _ = try tree.set(1, at: DatabasePath("a"), now: Date(timeIntervalSince1970: 0))
        #expect(tree.etag(at: .root) == original)
    }
}
