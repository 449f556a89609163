import CloudFunctions
import Foundation
import Testing

/// `database:get` and `database:set` against a running emulator.
@Suite("functions database:*", .timeLimit(.minutes(5)))
struct DatabaseCommandsTests {
    @Test("set, merge and get values, with shallow and limited reads")
    func setAndGet() throws {
        let emulator = try RunningEmulator()
        let set = try emulator.cli("database:set", "/scores/s1", #"{"player": "ada", "score": 42}"#)
        #expect(set.status == 0, "\(set.errors)")
        #expect(try emulator.cli("database:set", "/scores/s2", "--data-file", "-", input: #"{"player": "bo", "score": 7}"#)
            .status == 0)
        let merged = try emulator.cli("database:set", "/scores/s2", #"{"score": 9}"#, "--merge")
        #expect(merged.status == 0, "\(merged.errors)")

        let all = try JSONValue(parsing: Data(try emulator.cli("database:get", "/scores").output.utf8))
        #expect(all == ["s1": ["player": "ada", "score": 42], "s2": ["player": "bo", "score": 9]])
        let shallow = try JSONValue(parsing: Data(try emulator.cli("database:get", "/scores", "--shallow").output.utf8))
        #expect(shallow == ["s1": true, "s2": true])
        let top = try JSONValue(parsing: Data(try emulator.cli("database:get", "/scores", "--order-by", "score",
            "--limit-to-last", "1").output.utf8))
        #expect(top == ["s1": ["player": "ada", "score": 42]])
        #expect(try emulator.cli("database:get", "/nothing").output == "null\n")
        // Keys are keys, not URL syntax: a %41 stays %41, a ? and a space stay in the key.
        #expect(try emulator.cli("database:set", "/odd/%41", "1").status == 0)
        #expect(try emulator.cli("database:set", "/odd/what? now", "2").status == 0)
        let odd = try JSONValue(parsing: Data(try emulator.cli("database:get", "/odd").output.utf8))
        #expect(odd == ["%41": 1, "what? now": 2])
        #expect(try emulator.cli("database:get", "/odd/what? now").output == "2\n")
    }

    @Test("bad input: a value that is not JSON, a key with a forbidden character, no value at all")
    func badInput() throws {
        let emulator = try RunningEmulator()
        let notJSON = try emulator.cli("database:set", "/a", "hello")
        #expect(notJSON.status != 0)
        #expect(notJSON.errors.contains("the value is not JSON"))
        let badKey = try emulator.cli("database:set", "/a.b", "1")
        #expect(badKey.status != 0)
        #expect(badKey.errors.contains("keys cannot contain"))
        let none = try emulator.cli("database:set", "/a")
        #expect(none.status != 0)
        #expect(none.errors.contains("give the value as JSON or --data-file"))
        #expect(try emulator.cli("database:get", "/").output == "null\n")
    }
}

/// `database:import --from parse`.
@Suite("functions database:import", .timeLimit(.minutes(5)))
struct DatabaseImportTests {
    @Test("a Parse class export lands under the path, one child per objectId, with Parse types as plain JSON")
    func importParse() throws {
        let emulator = try RunningEmulator()
        let export = #"""
            {"results": [
              {"objectId": "s1", "player": {"__type": "Pointer", "className": "_User", "objectId": "u1"}, "points": 30,
               "playedAt": {"__type": "Date", "iso": "2015-06-01T09:00:00.000Z"}, "createdAt": "2015-06-01T09:00:01.000Z",
               "where": {"__type": "GeoPoint", "latitude": 48.85, "longitude": 2.35},
               "replay": {"__type": "File", "name": "r.mp4", "url": "https://files.example.com/r.mp4"},
               "fans": {"__type": "Relation", "className": "_User"}, "ACL": {"*": {"read": true}}, "note": null},
              {"objectId": "s2", "player": {"__type": "Pointer", "className": "_User", "objectId": "u2"}, "points": 7,
               "tags": ["a", {"__type": "Date", "iso": "2016-01-01T00:00:00.000Z"}]}
            ]}
            """#
        let run = try emulator.cli("database:import", "-", "--from", "parse", "--path", "/scores", input: export)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "imported 2 objects under /scores\n")
        let scores = try JSONValue(parsing: Data(try emulator.cli("database:get", "/scores").output.utf8))
        #expect(scores["s1"] == [
            "player": "u1", "points": 30, "playedAt": "2015-06-01T09:00:00.000Z",
            "createdAt": "2015-06-01T09:00:01.000Z", "where": ["latitude": 48.85, "longitude": 2.35],
            "replay": "https://files.example.com/r.mp4",
        ])
        #expect(scores["s2"] == ["player": "u2", "points": 7, "tags": ["a", "2016-01-01T00:00:00.000Z"]])
    }

    @Test("objects without ids or with field names the database cannot hold are refused; nothing is written")
    func badInput() throws {
        let emulator = try RunningEmulator()
        let noID = try emulator.cli("database:import", "-", "--path", "/x", input: #"{"results": [{"a": 1}]}"#)
        #expect(noID.status != 0)
        #expect(noID.errors.contains("object 0 has no objectId"), "\(noID.errors)")
        let badField = try emulator.cli("database:import", "-", "--path", "/x",
            input: #"[{"objectId": "o1", "a.b": 1}]"#)
        #expect(badField.errors.contains("field named 'a.b'"), "\(badField.errors)")
        let noPath = try emulator.cli("database:import", "-", input: "[]")
        #expect(noPath.status != 0)
        #expect(try emulator.cli("database:get", "/x").output == "null\n")
    }
}
