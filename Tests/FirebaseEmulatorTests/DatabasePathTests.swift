import Foundation
import CloudFunctions
import Testing

@testable import FirebaseEmulator

@Suite("DatabasePath")
struct DatabasePathTests {
    @Test("normalises slashes and splits into segments", arguments: [
        ("", [String]()), ("/", []), ("//", []), ("a", ["a"]), ("/a/b/", ["a", "b"]), ("a//b///c", ["a", "b", "c"]),
        ("/users/u1", ["users", "u1"]), ("ключ/ü", ["ключ", "ü"]),
    ])
    func parses(input: String, segments: [String]) throws {
        #expect(try DatabasePath(input).segments == segments)
    }

    @Test("describes itself with a leading slash")
    func description() throws {
        #expect(try DatabasePath("a//b/").description == "/a/b")
        #expect(DatabasePath.root.description == "/")
    }

    @Test("rejects segments with forbidden characters",
          arguments: ["a.b", "a$", "#x", "a[0]", "b]", "a\u{01}", "x\u{7F}"])
    func rejectsForbidden(input: String) {
        #expect(throws: ServiceError.self) { try DatabasePath("ok/" + input) }
    }

    @Test("uses the documented error texts")
    func errorTexts() {
        #expect(throws: ServiceError(.invalidArgument, 
            "Invalid path: segment \"a.b\" must not contain '/', '.', '#', '$', '[', or ']'")
        ) { try DatabasePath("x/a.b") }
        #expect(throws: ServiceError(.invalidArgument, 
            "Invalid path: segment \"a\u{1F}\" must not contain ASCII control characters")
        ) { try DatabasePath("a\u{1F}") }
        #expect(throws: ServiceError(.invalidArgument, "Invalid path: depth 33 exceeds the maximum of 32 levels")) {
            try DatabasePath(Array(repeating: "k", count: 33).joined(separator: "/"))
        }
        #expect(throws: ServiceError(.invalidArgument, 
            "Invalid path: segment \"a/b\" must not contain '/', '.', '#', '$', '[', or ']'")
        ) { try DatabasePath(segments: ["a/b"]) }
    }

    @Test("limits keys to 768 UTF-8 bytes and depth to 32")
    func limits() throws {
        #expect(try DatabasePath(String(repeating: "é", count: 384)).depth == 1)
        #expect(throws: ServiceError.self) { try DatabasePath(String(repeating: "é", count: 385)) }
        let deep = try DatabasePath(Array(repeating: "k", count: 32).joined(separator: "/"))
        #expect(deep.depth == 32)
        #expect(throws: ServiceError.self) { try deep.child("one-more") }
    }

    @Test("navigates to parent, child and key")
    func navigation() throws {
        let path = try DatabasePath("a/b/c")
        #expect(path.key == "c")
        #expect(path.parent == (try DatabasePath("a/b")))
        #expect(DatabasePath.root.parent == nil)
        #expect(DatabasePath.root.key == nil)
        #expect(try path.child("d/e").segments == ["a", "b", "c", "d", "e"])
        #expect(throws: ServiceError.self) { try path.child("d.e") }
    }

    @Test("relates ancestors and descendants")
    func relations() throws {
        let a = try DatabasePath("a")
        let abc = try DatabasePath("a/b/c")
        let ab2 = try DatabasePath("ab")
        #expect(a.isAncestor(of: abc))
        #expect(!abc.isAncestor(of: a))
        #expect(!a.isAncestor(of: a))
        #expect(a.contains(a))
        #expect(!a.contains(ab2))
        #expect(DatabasePath.root.isAncestor(of: a))
        #expect(a.relativePath(to: abc)?.segments == ["b", "c"])
        #expect(a.relativePath(to: a) == .root)
        #expect(abc.relativePath(to: a) == nil)
        #expect(a.overlaps(abc) && abc.overlaps(a) && !a.overlaps(ab2))
    }

    @Test("validates data keys with the documented texts")
    func keys() {
        #expect(DatabaseKey.isValid("user-1_ü ok"))
        #expect(throws: ServiceError(.invalidArgument, 
            "Invalid key: a/b. Keys must not contain '/', '.', '#', '$', '[', or ']'")
        ) { try DatabaseKey.validate("a/b") }
        #expect(throws: ServiceError(.invalidArgument, "Invalid key: . Keys must not be empty")) {
            try DatabaseKey.validate("")
        }
        let long = String(repeating: "x", count: 769)
        #expect(throws: ServiceError(.invalidArgument,
            "Invalid key: \(long). Keys must be at most 768 bytes of UTF-8")) {
            try DatabaseKey.validate(long)
        }
        #expect(DatabaseKey.isValid(String(repeating: "x", count: 768)))
    }
}
