import CloudFunctions

/// A rules file as written: JSON with `//` and `/* */` comments and line breaks inside strings
/// (as `database.rules.json` files have, and the Realtime Database accepts), read with the
/// position of every value so that an error can name its line and column.
indirect enum RulesSource {
    case object([(key: String, value: RulesSource, offset: Int)], offset: Int)
    case array([RulesSource], offset: Int)
    /// A string, with the offset of its first character (after the quote) in the file.
    case string(String, offset: Int)
    case bool(Bool, offset: Int)
    case number(Double, offset: Int)
    case null(offset: Int)

    var offset: Int {
        switch self {
        case .object(_, let offset), .array(_, let offset), .string(_, let offset), .bool(_, let offset),
            .number(_, let offset), .null(let offset):
            offset
        }
    }

    /// Reads a whole file.
    ///
    /// - Throws: ``DatabaseRulesError`` with the position of the first syntax error.
    static func parse(_ text: String) throws(DatabaseRulesError) -> RulesSource {
        var reader = Reader(bytes: Array(text.utf8), text: text)
        let value = try reader.value()
        try reader.skipSpace()
        guard reader.index == reader.bytes.count else { throw reader.error("Parse error.") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        let text: String
        var index = 0
        /// How many objects and arrays enclose the value being read: bounded, as the database's
        /// own JSON is, so that no rules file runs the parser out of stack.
        var depth = 0
        static let maximumDepth = 512

        func error(_ message: String) -> DatabaseRulesError {
            DatabaseRulesError(text: text, offset: index, message: message)
        }

        mutating func skipSpace() throws(DatabaseRulesError) {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                    while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                    index += 2
                    while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                        index += 1
                    }
                    guard index + 1 < bytes.count else { throw error("Unterminated comment.") }
                    index += 2
                default: return
                }
            }
        }

        /// After a member or element: `true` when a `,` says another follows, `false` when
        /// `closing` ends the object or array (both consumed).
        mutating func another(closing: Unicode.Scalar) throws(DatabaseRulesError) -> Bool {
            try skipSpace()
            guard index < bytes.count else { throw error("Parse error.") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                return true
            }
            guard bytes[index] == UInt8(ascii: closing) else { throw error("Parse error.") }
            index += 1
            return false
        }

        /// Goes into an object or array, refusing one nested beyond ``maximumDepth``.
        mutating func enter() throws(DatabaseRulesError) {
            guard depth < Self.maximumDepth else { throw error("Rules are nested too deeply.") }
            depth += 1
        }

        mutating func value() throws(DatabaseRulesError) -> RulesSource {
            try skipSpace()
            let start = index
            guard index < bytes.count else { throw error("Parse error.") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                try enter()
                defer { depth -= 1 }
                index += 1
                var members: [(key: String, value: RulesSource, offset: Int)] = []
                try skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members, offset: start)
                }
                while true {
                    try skipSpace()
                    let keyOffset = index
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("Parse error.") }
                    let key = try string()
                    try skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("Parse error.") }
                    index += 1
                    members.append((key, try value(), keyOffset))
                    guard try another(closing: "}") else { return .object(members, offset: start) }
                }
            case UInt8(ascii: "["):
                try enter()
                defer { depth -= 1 }
                index += 1
                var elements: [RulesSource] = []
                try skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements, offset: start)
                }
                while true {
                    elements.append(try value())
                    guard try another(closing: "]") else { return .array(elements, offset: start) }
                }
            case UInt8(ascii: "\""):
                return .string(try string(), offset: start + 1)
            default:
                while index < bytes.count, !" \t\r\n,}]/".utf8.contains(bytes[index]) { index += 1 }
                let word = String(decoding: bytes[start..<index], as: UTF8.self)
                switch word {
                case "true": return .bool(true, offset: start)
                case "false": return .bool(false, offset: start)
                case "null": return .null(offset: start)
                default:
                    guard let number = Double(word), number.isFinite else {
                        index = start
                        throw error("Parse error.")
                    }
                    return .number(number, offset: start)
                }
            }
        }

        /// A JSON string; raw line breaks are allowed inside it.
        mutating func string() throws(DatabaseRulesError) -> String {
            index += 1
            var output: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: output, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw error("Parse error.") }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "n"): output.append(0x0A)
                    case UInt8(ascii: "t"): output.append(0x09)
                    case UInt8(ascii: "r"): output.append(0x0D)
                    case UInt8(ascii: "b"): output.append(0x08)
                    case UInt8(ascii: "f"): output.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count,
                            let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
                            let scalar = Unicode.Scalar(code)
                        else { throw error("Parse error.") }
                        output.append(contentsOf: String(scalar).utf8)
                        index += 4
                    default: output.append(escaped)
                    }
                default:
                    output.append(byte)
                }
            }
            throw error("Unterminated string.")
        }
    }
}

/// A rules file that cannot be used: where, and why, as the Realtime Database reports it
/// (`3:15: Unknown variable 'tr'.`).
package struct DatabaseRulesError: Error, Sendable, CustomStringConvertible {
    /// 1-based line in the file.
    public var line: Int
    /// 1-based column in the file.
    public var column: Int
    /// What is wrong.
    public var message: String

    public var description: String { "\(line):\(column): \(message)" }

    init(text: String, offset: Int, message: String) {
        var line = 1
        var column = 1
        for byte in text.utf8.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        self.line = line
        self.column = column
        self.message = message
    }
}
