import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation

/// Parses the not-quite-JSON bodies the iOS Remote Config SDK sends:
/// `{app_instance_id:'fid', app_id:'1:1:ios:a', analytics_user_properties:{"k":"v"}}`.
///
/// A superset of JSON: object keys may be unquoted (letters, digits, `_`, `$`, `-`, `.`), strings
/// may be single- or double-quoted (with JSON's escapes plus `\'`), and a trailing comma is allowed
/// in objects and arrays. Nothing else is relaxed: comments, `NaN` or bare words are errors.
struct LenientJSONParser {
    /// Why a body could not be parsed: the byte offset and what was expected there.
    struct SyntaxError: Error, CustomStringConvertible {
        var offset: Int
        var expected: String

        var description: String { "expected \(expected) at offset \(offset)" }
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(_ data: Data) {
        bytes = data.byteArray
    }

    /// Parses one value filling the whole body (surrounding whitespace allowed).
    static func parse(_ data: Data) throws(SyntaxError) -> JSONValue {
        var parser = LenientJSONParser(data)
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("the end of the body") }
        return value
    }

    private func error(_ expected: String) -> SyntaxError {
        SyntaxError(offset: index, expected: expected)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09 { index += 1 }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard current == byte else { return false }
        index += 1
        return true
    }

    private mutating func value() throws(SyntaxError) -> JSONValue {
        skipWhitespace()
        switch current ?? 0 {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default:
            for (word, value) in [("true", JSONValue.bool(true)), ("false", .bool(false)), ("null", .null)]
            where bytes[index...].starts(with: word.utf8) {
                index += word.utf8.count
                return value
            }
            throw error("a value")
        }
    }

    private mutating func object() throws(SyntaxError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        while !consume(UInt8(ascii: "}")) {
            skipWhitespace()
            let quoted = current == UInt8(ascii: "\"") || current == UInt8(ascii: "'")
            let key = try quoted ? string() : bareKey()
            guard consume(UInt8(ascii: ":")) else { throw error("':' after key '\(key)'") }
            members[key] = try value()
            guard consume(UInt8(ascii: ",")) || (skipWhitespaceAndPeek() == UInt8(ascii: "}")) else {
                throw error("',' or '}'")
            }
        }
        return .object(members)
    }

    private mutating func array() throws(SyntaxError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        while !consume(UInt8(ascii: "]")) {
            elements.append(try value())
            guard consume(UInt8(ascii: ",")) || (skipWhitespaceAndPeek() == UInt8(ascii: "]")) else {
                throw error("',' or ']'")
            }
        }
        return .array(elements)
    }

    private mutating func skipWhitespaceAndPeek() -> UInt8? {
        skipWhitespace()
        return current
    }

    private mutating func bareKey() throws(SyntaxError) -> String {
        let start = index
        while let byte = current, Self.isKeyByte(byte) { index += 1 }
        guard index > start else { throw error("an object key") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "-"),
            UInt8(ascii: "."):
            true
        default: false
        }
    }

    private mutating func number() throws(SyntaxError) -> JSONValue {
        let start = index
        if current == UInt8(ascii: "+") { index += 1 }
        while let byte = current,
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-.eE+".utf8.contains(byte)
        {
            index += 1
        }
        var text = String(decoding: bytes[start..<index], as: UTF8.self)
        if text.hasPrefix("+") { text.removeFirst() }
        guard let number = Double(text), number.isFinite else {
            index = start
            throw error("a number")
        }
        return .number(number)
    }

    /// A single- or double-quoted string with JSON's escapes (and `\'`).
    private mutating func string() throws(SyntaxError) -> String {
        let quote = bytes[index]
        index += 1
        var utf8: [UInt8] = []
        while let byte = current {
            index += 1
            if byte == quote { return String(decoding: utf8, as: UTF8.self) }
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                continue
            }
            guard let escaped = current else { break }
            index += 1
            let scalar: Unicode.Scalar =
                switch escaped {
                case UInt8(ascii: "n"): "\n"
                case UInt8(ascii: "t"): "\t"
                case UInt8(ascii: "r"): "\r"
                case UInt8(ascii: "b"): "\u{08}"
                case UInt8(ascii: "f"): "\u{0C}"
                case UInt8(ascii: "u"): try unicodeEscape()
                default: Unicode.Scalar(escaped)
                }
            utf8.append(contentsOf: String(scalar).utf8)
        }
        throw error("a closing quote")
    }

    /// The scalar of `\uXXXX` (the `\u` already read), joining a UTF-16 surrogate pair.
    private mutating func unicodeEscape() throws(SyntaxError) -> Unicode.Scalar {
        let high = try hexUnit()
        if (0xD800..<0xDC00).contains(high), bytes[index...].starts(with: "\\u".utf8) {
            index += 2
            let low = try hexUnit()
            if (0xDC00..<0xE000).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            {
                return scalar
            }
            throw error("a low surrogate")
        }
        guard let scalar = Unicode.Scalar(high) else { throw error("a unicode scalar") }
        return scalar
    }

    private mutating func hexUnit() throws(SyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count,
            let unit = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
        else { throw error("four hex digits") }
        index += 4
        return unit
    }
}
