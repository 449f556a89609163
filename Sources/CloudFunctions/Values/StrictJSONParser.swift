import CloudEvents

/// Parses JSON text exactly as RFC 8259 defines it, into a ``JSONValue``.
///
/// Everything a lenient reader lets through is refused: trailing commas, comments, single
/// quotes, unquoted keys, `NaN`/`Infinity`, leading zeros, control characters in strings,
/// invalid UTF-8 and unpaired surrogate escapes. Numbers beyond a Double's range are refused
/// rather than turned into infinities, and nesting deeper than ``maximumDepth`` is refused
/// rather than exhausting the stack. When the same key appears twice in an object, the last
/// one wins, as in JavaScript's `JSON.parse`. Scalars are read by the CloudEvents scanner.
struct StrictJSONParser {
    /// How deep arrays and objects may nest.
    static let maximumDepth = 512

    private var scanner: JSONScanner
    private var depth = 0

    /// Parses a whole document; nothing but white space may follow the value.
    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = StrictJSONParser(scanner: JSONScanner(bytes))
        do throws(CloudEventError) {
            let value = try parser.parseValue()
            parser.scanner.skipWhitespace()
            guard parser.scanner.atEnd else { throw parser.scanner.error("unexpected text after the JSON value") }
            return value
        } catch {
            throw JSONSyntaxError(reason: error.message, offset: parser.scanner.index)
        }
    }

    private mutating func parseValue() throws(CloudEventError) -> JSONValue {
        scanner.skipWhitespace()
        switch scanner.peek {
        case UInt8(ascii: "{"):
            try enterContainer()
            defer { depth -= 1 }
            var members: [String: JSONValue] = [:]
            if scanner.consume(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                let key = try scanner.readString()
                try scanner.expect(UInt8(ascii: ":"))
                members[key] = try parseValue()
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "}"))
            return .object(members)
        case UInt8(ascii: "["):
            try enterContainer()
            defer { depth -= 1 }
            var elements: [JSONValue] = []
            if scanner.consume(UInt8(ascii: "]")) { return .array(elements) }
            repeat {
                elements.append(try parseValue())
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "]"))
            return .array(elements)
        default:
            switch try scanner.readScalar() {
            case .string(let string): return .string(string)
            case .bool(let bool): return .bool(bool)
            case .null: return .null
            case .number(let text):
                guard let number = Double(text), number.isFinite else { throw scanner.error("number out of range") }
                return .number(number)
            }
        }
    }

    private mutating func enterContainer() throws(CloudEventError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw scanner.error("nesting is deeper than \(Self.maximumDepth) levels")
        }
        _ = scanner.consume(scanner.peek ?? 0)
    }
}

/// Why a text is not JSON: what was wrong, and at which byte.
public struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    /// What was wrong, and at which byte.
    public var reason: String
    /// The byte offset where it was found.
    public var offset: Int

    public var description: String { reason }
}
