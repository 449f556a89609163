/// A minimal, strict JSON reader over UTF-8 bytes (RFC 8259: no trailing commas, comments or
/// leading zeros; strings must be valid UTF-8 without unpaired surrogates), enough to read an
/// event envelope while keeping the `data` member's bytes exactly as they were written.
/// CloudFunctions' `JSONValue` parser reads scalars and strings with it too.
package struct JSONScanner {
    package enum Scalar {
        case string(String)
        case number(Substring)
        case bool(Bool)
        case null
    }

    let bytes: [UInt8]
    package private(set) var index = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var atEnd: Bool { index == bytes.count }

    package var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    package mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    package mutating func expect(_ byte: UInt8) throws(CloudEventError) {
        skipWhitespace()
        guard peek == byte else {
            throw error("expected '\(Character(Unicode.Scalar(byte)))'")
        }
        index += 1
    }

    package mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard peek == byte else { return false }
        index += 1
        return true
    }

    package func error(_ message: String) -> CloudEventError {
        CloudEventError(.invalidJSON, "\(message) at byte \(index)")
    }

    /// Reads a scalar value; objects and arrays are an error.
    package mutating func readScalar() throws(CloudEventError) -> Scalar {
        skipWhitespace()
        guard let byte = peek else { throw error("expected a value") }
        switch byte {
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let range = try skipNumber()
            return .number(Substring(decoding: bytes[range], as: UTF8.self))
        default: throw error("expected a string, number, boolean or null")
        }
    }

    /// Skips any JSON value and returns the range of its bytes.
    package mutating func skipValue(depth: Int = 0) throws(CloudEventError) -> Range<Int> {
        guard depth < 512 else { throw error("nesting too deep") }
        skipWhitespace()
        let start = index
        switch peek {
        case UInt8(ascii: "{"):
            index += 1
            if !consume(UInt8(ascii: "}")) {
                repeat {
                    try skipString()
                    try expect(UInt8(ascii: ":"))
                    _ = try skipValue(depth: depth + 1)
                } while consume(UInt8(ascii: ","))
                try expect(UInt8(ascii: "}"))
            }
        case UInt8(ascii: "["):
            index += 1
            if !consume(UInt8(ascii: "]")) {
                repeat {
                    _ = try skipValue(depth: depth + 1)
                } while consume(UInt8(ascii: ","))
                try expect(UInt8(ascii: "]"))
            }
        case UInt8(ascii: "\""):
            try skipString()
        default:
            _ = try readScalar()
        }
        return start..<index
    }

    private mutating func literal(_ word: String) throws(CloudEventError) {
        for byte in word.utf8 {
            guard peek == byte else { throw error("invalid literal") }
            index += 1
        }
    }

    private mutating func skipNumber() throws(CloudEventError) -> Range<Int> {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, isDigit(first) else { throw error("invalid number") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let byte = peek, isDigit(byte) { index += 1 }
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let byte = peek, isDigit(byte) else { throw error("invalid number") }
            while let byte = peek, isDigit(byte) { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek, isDigit(byte) else { throw error("invalid number") }
            while let byte = peek, isDigit(byte) { index += 1 }
        }
        return start..<index
    }

    private func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    package mutating func readString() throws(CloudEventError) -> String {
        var text: String? = ""
        try scanString(into: &text)
        return text ?? ""
    }

    /// Checks a string and moves past it without building it: what skipping a value needs.
    private mutating func skipString() throws(CloudEventError) {
        var nothing: String?
        try scanString(into: &nothing)
    }

    /// Checks the string at the current index and moves past it, appending its text to `text`
    /// unless that is `nil`. A string without escapes is one run: its text is made once, from
    /// the bytes.
    private mutating func scanString(into text: inout String?) throws(CloudEventError) {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { throw error("expected a string") }
        index += 1
        var runStart = index
        while true {
            guard let byte = peek else { throw error("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                try takeRun(from: runStart, into: &text)
                index += 1
                return
            }
            if byte < 0x20 { throw error("control character in string") }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            try takeRun(from: runStart, into: &text)
            index += 1
            let escaped = try readEscape()
            text?.unicodeScalars.append(escaped)
            runStart = index
        }
    }

    /// Checks that the unescaped bytes from `start` to the current index are UTF-8, and appends
    /// them to `text` unless that is `nil` (checked without building a string then).
    private func takeRun(from start: Int, into text: inout String?) throws(CloudEventError) {
        guard start < index else { return }
        // ASCII, as nearly every string is, needs no validation.
        var position = start
        while position < index, bytes[position] < 0x80 { position += 1 }
        let run: String
        if position == index {
            guard text != nil else { return }
            // Decoding is specialized here, where the generic validating initializer looks up
            // type metadata at every call.
            run = String(decoding: bytes[start..<index], as: UTF8.self)
        } else if text == nil {
            var parser = Unicode.UTF8.ForwardParser()
            var iterator = bytes[position..<index].makeIterator()
            while true {
                switch parser.parseScalar(from: &iterator) {
                case .valid: continue
                case .emptyInput: return
                case .error: throw error("invalid UTF-8 in string")
                }
            }
        } else {
            guard let valid = String(validating: bytes[start..<index], as: UTF8.self) else {
                throw error("invalid UTF-8 in string")
            }
            run = valid
        }
        // The usual string is one run: it becomes the text, not a copy appended to an empty one.
        if text?.isEmpty == true { text = run } else { text?.append(run) }
    }

    private mutating func readEscape() throws(CloudEventError) -> Unicode.Scalar {
        guard let byte = peek else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try readHex4()
            if (0xD800..<0xDC00).contains(unit) {
                guard peek == UInt8(ascii: "\\") else { throw error("unpaired surrogate") }
                index += 1
                guard peek == UInt8(ascii: "u") else { throw error("unpaired surrogate") }
                index += 1
                let low = try readHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                let value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw error("invalid escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(unit) else { throw error("unpaired surrogate") }
            return scalar
        default:
            throw error("invalid escape")
        }
    }

    private mutating func readHex4() throws(CloudEventError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = hexValue(byte) else { throw error("invalid \\u escape") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x46: UInt32(byte - 0x41 + 10)
        case 0x61...0x66: UInt32(byte - 0x61 + 10)
        default: nil
        }
    }
}
