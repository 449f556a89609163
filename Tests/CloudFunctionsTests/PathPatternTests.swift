import CloudFunctions
import Testing

@Suite("Path patterns")
struct PathPatternTests {
    @Test("captures single and multi-segment wildcards as the SDK does")
    func sdkCase() throws {
        let pattern = try PathPattern("something/{path=**}/else/{a}/hello/{b}/world")
        #expect(pattern.match("something/is/a/thing/else/match_a/hello/match_b/world")
            == ["path": "is/a/thing", "a": "match_a", "b": "match_b"])
    }

    @Test(
        "matches and captures",
        arguments: [
            ("/users/{uid}", "users/abc", ["uid": "abc"]),
            ("users/{uid=*}", "/users/abc/", ["uid": "abc"]),
            ("users/*", "users/abc", [:]),
            ("users/**", "users", [:]),
            ("users/**", "users/a/b/c", [:]),
            ("{rest=**}", "a/b", ["rest": "a/b"]),
            ("a/{rest=**}/z", "a/z", ["rest": ""]),
            ("users//{uid}", "users/u%20v%2Fw", ["uid": "u v/w"]),
            ("", "", [:]),
        ] as [(String, String, [String: String])]
    )
    func matches(pattern: String, path: String, captures: [String: String]) throws {
        #expect(try PathPattern(pattern).match(path) == captures)
        #expect(try PathPattern(pattern).matches(path))
    }

    @Test(
        "does not match other paths",
        arguments: [
            ("users/{uid}", "users"), ("users/{uid}", "users/a/b"), ("users/{uid}", "posts/a"),
            ("a/**/z", "a/b"), ("a/*/c", "a/b/d"), ("", "a"),
        ]
    )
    func mismatches(pattern: String, path: String) throws {
        #expect(try PathPattern(pattern).match(path) == nil)
        #expect(try !PathPattern(pattern).matches(path))
    }

    @Test("literals compare byte for byte, and non-ASCII captures come back whole")
    func nonASCII() throws {
        let pattern = try PathPattern("café/{name}")
        #expect(pattern.match("café/Zoë") == ["name": "Zoë"])
        #expect(pattern.match("/café//Zoë%21/") == ["name": "Zoë!"])
        // The same text with a combining accent is a different database key.
        #expect(pattern.match("cafe\u{301}/Zoë") == nil)
        #expect(!pattern.matches("cafe\u{301}/Zoë"))
        #expect(!pattern.matches("caf/Zoë") && !pattern.matches("cafés/Zoë"))
    }

    @Test(
        "rejects malformed patterns with the reason",
        arguments: [
            ("users/{uid", "mixes text"), ("users/{}", "not a valid capture name"), ("users/{9x}", "not a valid"),
            ("users/{a=b}", "must capture"), ("a/{x}/b/{x}", "appears twice"), ("a/**/b/**", "only one"),
            ("a/b*", "mixes text"), ("a/{x=**}/{y=**}", "only one"),
        ]
    )
    func rejects(pattern: String, reason: String) {
        #expect {
            try PathPattern(pattern)
        } throws: { error in
            (error as? PathPatternError)?.reason.contains(reason) == true
        }
    }

    @Test("malformed database paths are rejected at registration")
    func rejectedAtRegistration() {
        var functions = FunctionRegistry()
        #expect {
            try functions.register("bad", Database.ref("/users/{uid").onWrite { _, _ in })
        } throws: { error in
            (error as? RegistryError)?.problems.first?.code == .invalidTrigger
        }
        functions["alsoBad"] = Database.ref("/a/{x}/{x}").onCreate { _, _ in }
        #expect(throws: RegistryError.self) { try functions.validate() }
        #expect(functions.isEmpty)
    }
}
