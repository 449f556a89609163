import CloudFunctions
import Foundation
import Testing

@Suite("DataSnapshot and Change follow the SDK exactly")
struct DataSnapshotTests {
    struct ApplyChangeCase: Sendable, CustomTestStringConvertible {
        let before: JSONValue, delta: JSONValue, after: JSONValue
        var testDescription: String { "\(before.serialized()) + \(delta.serialized())" }
    }

    struct ValCase: Sendable, CustomTestStringConvertible {
        let data: JSONValue, child: String, val: JSONValue
        var testDescription: String { "\(data.serialized()) at '\(child)'" }
    }

    struct ExistsCase: Sendable, CustomTestStringConvertible {
        let data: JSONValue, child: String, exists: Bool
        var testDescription: String { "\(data.serialized()) at '\(child)'" }
    }

    static let cases = (try? Fixture.json("rtdb-applychange-cases.json")) ?? .null

    static let applyChangeCases = (cases["applyChange"]?.arrayValue ?? []).map {
        ApplyChangeCase(before: $0["before"]!, delta: $0["delta"]!, after: $0["after"]!)
    }
    static let valCases = (cases["snapshotVal"]?.arrayValue ?? []).map {
        ValCase(data: $0["data"]!, child: $0["child"]!.stringValue!, val: $0["val"]!)
    }
    static let existsCases = (cases["snapshotExists"]?.arrayValue ?? []).map {
        ExistsCase(data: $0["data"]!, child: $0["child"]!.stringValue!, exists: $0["exists"]!.boolValue!)
    }

    @Test("the vector file has every case")
    func vectorCounts() {
        #expect(Self.applyChangeCases.count == 5)
        #expect(Self.valCases.count == 16)
        #expect(Self.existsCases.count == 4)
    }

    @Test("applyChange merges a delta into earlier data", arguments: applyChangeCases)
    func applyChange(_ testCase: ApplyChangeCase) {
        #expect(Change<DataSnapshot>.applyChange(testCase.before, testCase.delta) == testCase.after)
    }

    @Test("val() normalises data", arguments: valCases)
    func val(_ testCase: ValCase) {
        #expect(DataSnapshot(testCase.data).child(testCase.child).val() == testCase.val)
    }

    @Test("exists() is whether val() has data", arguments: existsCases)
    func exists(_ testCase: ExistsCase) {
        #expect(DataSnapshot(testCase.data).child(testCase.child).exists() == testCase.exists)
    }

    @Test("the reference write events give the documented before and after")
    func referenceWrites() throws {
        let write = try Fixture.json("rtdb-write.cloudevent.json")["data"]!
        let change = Change<DataSnapshot>(data: write["data"]!, delta: write["delta"]!, path: "gcf-test/xyz")
        #expect(!change.before.exists())
        #expect(change.after.val() == ["grandchild": "other"])

        let withBefore = try Fixture.json("rtdb-reference-eventdata.with-before.json")
        let second = Change<DataSnapshot>(data: withBefore["data"]!, delta: withBefore["delta"]!, path: "x")
        let expected: JSONValue = [
            "deeply": ["nested": ["text": "This is deeply nested", "text2": "Second value"], "abc": "def"],
            "grandchild": "other changed",
        ]
        #expect(second.after.val() == expected)
    }

    static let deltaCases: [(JSONValue, JSONValue)] = [
        (.null, ["a": 1]),
        (["a": 1, "b": ["c": 2, "d": 3]], ["b": ["c": 2]]),
        (["a": 1], .null),
        (["a": ["b": ["c": 1]]], ["a": ["b": ["d": 2]], "e": "f"]),
        (["a": 1], 5),
        (5, ["a": 1]),
        (["a": 1], ["a": 1]),
    ]

    @Test("delta(from:to:) is what applyChange needs to reach the new value", arguments: deltaCases)
    func deltaRoundTrip(before: JSONValue, after: JSONValue) {
        let delta = Change<DataSnapshot>.delta(from: before, to: after)
        let merged = Change<DataSnapshot>.applyChange(before, delta)
        #expect(DataSnapshot.normalize(merged) == DataSnapshot.normalize(after))
    }

    @Test("navigates children with keys, counts and ordered iteration")
    func navigation() {
        let snapshot = DataSnapshot(["b": 2, "a": ["x": 1], "10": true, "9": false, "gone": .null], path: "/root/")
        #expect(snapshot.key == "root")
        #expect(snapshot.path == "root")
        #expect(snapshot.child("a/x").key == "x")
        #expect(snapshot.child("a/x").path == "root/a/x")
        #expect(snapshot.numChildren() == 4)
        #expect(snapshot.hasChild("a/x"))
        #expect(!snapshot.hasChild("gone"))
        #expect(snapshot.childKeys == ["9", "10", "a", "b"])
        var visited: [String] = []
        let stopped = snapshot.forEach { child in
            visited.append(child.key!)
            return child.key == "a"
        }
        #expect(stopped)
        #expect(visited == ["9", "10", "a"])
        #expect(DataSnapshot(.null).key == nil)
        #expect(!DataSnapshot(5).hasChildren())
    }

    @Test("an array value's holes are not children")
    func arrayHoles() {
        // Stored as children 0, 2 and 3: val() reads an array with a null at 1.
        let snapshot = DataSnapshot(["0": "a", "2": "c", "3": "d"], path: "list")
        #expect(snapshot.val() == ["a", .null, "c", "d"])
        #expect(snapshot.numChildren() == 3)
        #expect(snapshot.childKeys == ["0", "2", "3"])
        var visited: [JSONValue] = []
        snapshot.forEach { child in
            visited.append(child.val())
            return false
        }
        #expect(visited == ["a", "c", "d"])
        #expect(!snapshot.hasChild("1"))
    }

    @Test("child paths read the same with or without stray slashes", arguments: [
        "a/x", "/a/x", "a/x/", "a//x", "//a///x//", "/a//x", "/a/x/",
    ])
    func straySlashes(path: String) {
        let snapshot = DataSnapshot(["a": ["x": 1, "y": 2]], path: "//root//")
        #expect(snapshot.path == "root")
        #expect(snapshot.child(path).path == "root/a/x")
        #expect(snapshot.child(path).val() == 1)
        #expect(snapshot.child("/a/").child(path.replacingOccurrences(of: "a", with: "")).val() == 1)
        #expect(snapshot.child("").child("a").child("").child("y").val() == 2)
    }

    @Test("a path of slashes alone is the root", arguments: ["", "/", "//", "///"])
    func rootPaths(path: String) {
        let snapshot = DataSnapshot(["a": 1], path: path)
        #expect(snapshot.path == "")
        #expect(snapshot.key == nil)
        #expect(snapshot.child(path).child("a").val() == 1)
    }
}
