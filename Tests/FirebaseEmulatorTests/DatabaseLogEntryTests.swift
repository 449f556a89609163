import CloudFunctions
import Foundation
import Testing

@testable import FirebaseEmulator

@Suite("Database write log and revert")
struct DatabaseLogEntryTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func start() throws -> DatabaseTree {
        try DatabaseTree(["a": ["b": 1, "c": ["d": "x"]], "p": 5, "list": ["x", "y"]], now: now)
    }

    /// Each write, applied to a copy of the start tree, returning its change and whether it is an update.
    static let writes: [(String, @Sendable (inout DatabaseTree) throws -> (DatabaseWriteChange, Bool))] = [
        ("set", { (try $0.set(["n": [".sv": "timestamp"]], at: DatabasePath("/a/c"), now: now), false) }),
        ("set over a primitive", { (try $0.set(9, at: DatabasePath("/p/q/r"), now: now), false) }),
        ("set at the root", { (try $0.set(["z": 1], at: .root, now: now), false) }),
        ("delete", { ($0.delete(at: try DatabasePath("/a/c/d")), false) }),
        ("push", { (try $0.push(["k": 1], at: DatabasePath("/list"), id: "-Nabc", now: now), false) }),
        (
            "update",
            {
                let values: [String: JSONValue] = ["a/b": nil, "p/x": 2, "list/5": "z", "new/deep/key": true]
                return (try $0.update(values, at: .root, now: now), true)
            }
        ),
    ]

    @Test("replaying a write's log entry on the old tree gives the new tree", arguments: 0..<writes.count)
    func replay(index: Int) throws {
        var tree = try Self.start()
        let (change, isUpdate) = try Self.writes[index].1(&tree)
        var replayed = try Self.start()
        DatabaseLogEntry(change: change, isUpdate: isUpdate).replay(on: &replayed)
        #expect(replayed == tree, "\(Self.writes[index].0)")
    }

    @Test("reverting a write restores the old tree", arguments: 0..<writes.count)
    func revert(index: Int) throws {
        var tree = try Self.start()
        let (change, _) = try Self.writes[index].1(&tree)
        #expect(tree != (try Self.start()))
        tree.revert(change)
        #expect(tree == (try Self.start()), "\(Self.writes[index].0)")
    }
}
