import CloudFunctions
import Foundation
import Testing

/// `database:get` and `database:set` against a running emulator.
@Suite("functions database:*")
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
