import CloudFunctions
import Foundation
import Testing

/// JSON text written from `JSONValue` strings: only `"`, `\` and control characters escaped,
/// every other character (any script, emoji, combining marks) written as it is.
@Suite("JSON values serialize strings exactly")
struct JSONValueSerializationTests {
    static let strings: [String] = [
        "", "plain", "a longer plain string, past the small-string size", "naïve café — ünïcödé 😀",
        "\"", "\\", "\"quoted\"", "back\\slash at the end\\", "\"\u{301} a quote with a combining mark",
        "line\nbreak\r\ttab", String((0..<0x20).map { Character(Unicode.Scalar($0)!) }), "\u{7F} delete is not escaped",
        "/ slashes / are not escaped", "\u{2028}\u{2029} separators", "end with a control\u{1}",
    ]

    @Test("each string reads back the same, through our parser and JSONDecoder", arguments: strings)
    func roundTrip(string: String) throws {
        let text = JSONValue.string(string).serialized()
        #expect(try JSONValue(parsing: text) == .string(string))
        #expect(try JSONDecoder().decode(String.self, from: Data(text.utf8)) == string)
        // Nothing but the quotes, backslashes and control characters changes.
        let kept = string.unicodeScalars.filter { $0 != "\"" && $0 != "\\" && $0.value >= 0x20 }
        #expect(String(String.UnicodeScalarView(kept)).utf8.count <= text.utf8.count)
        #expect(text.unicodeScalars.allSatisfy { $0.value >= 0x20 })
    }

    @Test("the escapes are the short ones, else \\u with four hex digits")
    func escapes() {
        #expect(JSONValue.string("a\"b\\c\nd\re\tf\u{0}g\u{1F}h").serialized() == #""a\"b\\c\nd\re\tf\u0000g\u001fh""#)
        #expect(JSONValue.object(["k\"ey": ["v\n", 1, true, .null]]).serialized() == #"{"k\"ey":["v\n",1,true,null]}"#)
        #expect(JSONValue.string("😀/é").serialized() == "\"😀/é\"")
    }
}
