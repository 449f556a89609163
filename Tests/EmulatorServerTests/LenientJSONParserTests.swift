import CloudFunctions
@testable import EmulatorServer
import Foundation
import Testing

@Suite("Lenient JSON parser")
struct LenientJSONParserTests {
    static func parse(_ text: String) throws -> JSONValue {
        try LenientJSONParser.parse(Data(text.utf8))
    }

    @Test("reads the iOS SDK's unquoted keys, single-quoted strings and embedded JSON objects")
    func iosBody() throws {
        let value = try Self.parse(
            "{app_instance_id:'fid', app_id:'1:1:ios:a', first_open_time:'2024-01-01T00:00:00.000Z', "
                + #"analytics_user_properties:{"tier":"gold"}, custom_signals:{"level":5, "on": true}}"#)
        #expect(value == [
            "app_instance_id": "fid", "app_id": "1:1:ios:a", "first_open_time": "2024-01-01T00:00:00.000Z",
            "analytics_user_properties": ["tier": "gold"], "custom_signals": ["level": 5, "on": true],
        ])
    }

    static let supersetCases: [(String, JSONValue)] = [
        (#"{"a": [1, -2.5, 3e2, true, false, null], "b": "x\"y"}"#,
            ["a": [1, -2.5, 300, true, false, .null], "b": "x\"y"]),
        (#"  "\u00e9\ud83d\ude00\n"  "#, "é😀\n"),
        ("{'it\\'s': 'a \"quote\"', trailing: [1, 2,],}", ["it's": "a \"quote\"", "trailing": [1, 2]]),
        ("{}", [:]),
    ]

    @Test("is a superset of JSON", arguments: supersetCases)
    func superset(text: String, expected: JSONValue) throws {
        #expect(try Self.parse(text) == expected)
    }

    @Test("refuses what is not JSON-like, with the offset", arguments: [
        "{a: 'open", "{a 1}", "{a: 1", "[1 2]", "{a: NaN}", "{a: 1} extra", "", "{: 1}", "'\\u12'",
    ])
    func refuses(text: String) {
        #expect(throws: LenientJSONParser.SyntaxError.self) { try Self.parse(text) }
    }
}
