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
        "/ slashes / are not escaped", "\u{2028}\u{2029} separators, \u{85}\u{9F} C1 controls", "end with a control\u{1}",
        "\"Ünïcödé\" 日本語 with\tescapes\nin the middle, at both ends and between 😀\\🎉 emoji\u{1F}",
    ]

    /// The writer before it appended runs of UTF-8: one Unicode scalar at a time.
    static func scalarByScalar(_ string: String) -> String {
        var output = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    @Test("each string is written as the scalar-by-scalar writer wrote it, and reads back the same",
        arguments: strings)
    func sameText(string: String) throws {
        let text = JSONValue.string(string).serialized()
        #expect(Array(text.utf8) == Array(Self.scalarByScalar(string).utf8))
        #expect(try JSONValue(parsing: text) == .string(string))
        #expect(try JSONDecoder().decode(String.self, from: Data(text.utf8)) == string)
    }

    @Test("the escapes are the short ones, else \\u with four hex digits")
    func escapes() {
        #expect(JSONValue.string("a\"b\\c\nd\re\tf\u{0}g\u{1F}h").serialized() == #""a\"b\\c\nd\re\tf\u0000g\u001fh""#)
        #expect(JSONValue.object(["k\"ey": ["v\n", 1, true, .null]]).serialized() == #"{"k\"ey":["v\n",1,true,null]}"#)
        #expect(JSONValue.string("😀/é\u{7F}\u{2028}").serialized() == "\"😀/é\u{7F}\u{2028}\"")
    }
}
