import Foundation

/// One rule (`".read": "auth != null && ..."`), parsed and checked when the rules load: the
/// JavaScript-like expression language of Realtime Database rules.
indirect enum RuleExpression: Sendable {
    case literal(RuleValue)
    case variable(String)
    case member(RuleExpression, String)
    case index(RuleExpression, RuleExpression)
    case call(RuleExpression, String, [RuleExpression])
    case array([RuleExpression])
    case unary(String, RuleExpression)
    case binary(String, RuleExpression, RuleExpression)
    case conditional(RuleExpression, RuleExpression, RuleExpression)
}

/// The static type of an expression, as far as the load-time checks need it.
enum RuleType: Equatable {
    /// `val()` and `getPriority()`: a string, number or boolean known only when the rule runs.
    case primitive
    case boolean, number, string, snapshot, query, regex, array, null, any
}

/// Parses an expression and checks it as the Realtime Database does when rules load: known
/// variables only, known methods on snapshots and strings, boolean operands for `&&`, `||`,
/// `!` and `?:`, and a boolean result.
struct RuleExpressionParser {
    enum Token: Equatable {
        case identifier(String), number(Double), string(String), regex(String, String), symbol(String), end
    }

    private var tokens: [(token: Token, offset: Int)] = []
    private var position = 0
    /// How deep the expression being read is: its nesting (parentheses, brackets, conditionals,
    /// prefix operators) and its chains (`a || b || …`, `x.parent().parent()…`, each link a level
    /// of the tree). Bounded, so that reading, evaluating and freeing it never run out of stack.
    private var depth = 0
    static let maximumDepth = 100
    private let variables: Set<String>
    private let source: String
    private let baseOffset: Int
    private let fileText: String

    static let snapshotMethods: [String: RuleType] = [
        "val": .primitive, "child": .snapshot, "parent": .snapshot, "hasChild": .boolean, "hasChildren": .boolean,
        "exists": .boolean, "getPriority": .primitive, "isNumber": .boolean, "isString": .boolean, "isBoolean": .boolean,
    ]
    static let stringMethods: [String: RuleType] = [
        "contains": .boolean, "beginsWith": .boolean, "endsWith": .boolean, "matches": .boolean, "replace": .string,
        "toLowerCase": .string, "toUpperCase": .string,
    ]
    static let queryFields: [String: RuleType] = [
        "orderByKey": .boolean, "orderByValue": .boolean, "orderByPriority": .boolean, "orderByChild": .any,
        "startAt": .any, "endAt": .any, "equalTo": .any, "limitToFirst": .any, "limitToLast": .any,
    ]

    /// Parses `source`, which starts at `offset` in `fileText`, with these variables in scope.
    static func parse(_ source: String, variables: Set<String>, offset: Int, fileText: String)
        throws(DatabaseRulesError) -> RuleExpression
    {
        var parser = RuleExpressionParser(variables: variables, source: source, baseOffset: offset, fileText: fileText)
        try parser.tokenize()
        let expression = try parser.conditional()
        guard parser.current == .end else { throw parser.error("Parse error.") }
        let type = try parser.type(of: expression)
        guard type == .boolean else { throw parser.error("Expression must evaluate to a boolean.", at: 0) }
        return expression
    }

    private init(variables: Set<String>, source: String, baseOffset: Int, fileText: String) {
        self.variables = variables
        self.source = source
        self.baseOffset = baseOffset
        self.fileText = fileText
    }

    private var current: Token { tokens[position].token }

    private func error(_ message: String, at offset: Int? = nil) -> DatabaseRulesError {
        let local = offset ?? tokens[min(position, tokens.count - 1)].offset
        let prefix = String(decoding: Array(source.utf8).prefix(local), as: UTF8.self)
        return DatabaseRulesError(text: fileText, offset: baseOffset + prefix.utf8.count, message: message)
    }

    // MARK: Tokens

    private mutating func tokenize() throws(DatabaseRulesError) {
        let bytes = Array(source.utf8)
        var index = 0
        func previousAllowsRegex() -> Bool {
            guard let last = tokens.last?.token else { return true }
            if case .symbol(let symbol) = last { return symbol != ")" && symbol != "]" }
            return false
        }
        while index < bytes.count {
            let byte = bytes[index]
            let start = index
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
                UInt8(ascii: "$"):
                while index < bytes.count, Self.isIdentifierByte(bytes[index]) { index += 1 }
                tokens.append((.identifier(String(decoding: bytes[start..<index], as: UTF8.self)), start))
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
                guard let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                    throw error("Parse error.", at: start)
                }
                tokens.append((.number(number), start))
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                index += 1
                var text: [UInt8] = []
                while index < bytes.count, bytes[index] != byte {
                    if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count {
                        index += 1
                        switch bytes[index] {
                        case UInt8(ascii: "n"): text.append(0x0A)
                        case UInt8(ascii: "t"): text.append(0x09)
                        default: text.append(bytes[index])
                        }
                    } else {
                        text.append(bytes[index])
                    }
                    index += 1
                }
                guard index < bytes.count else { throw error("Unterminated string.", at: start) }
                index += 1
                tokens.append((.string(String(decoding: text, as: UTF8.self)), start))
            case UInt8(ascii: "/") where previousAllowsRegex():
                index += 1
                var pattern: [UInt8] = []
                var inClass = false
                while index < bytes.count, inClass || bytes[index] != UInt8(ascii: "/") {
                    if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count {
                        pattern.append(contentsOf: bytes[index...index + 1])
                        index += 2
                        continue
                    }
                    if bytes[index] == UInt8(ascii: "[") { inClass = true }
                    if bytes[index] == UInt8(ascii: "]") { inClass = false }
                    pattern.append(bytes[index])
                    index += 1
                }
                guard index < bytes.count else { throw error("Unterminated regular expression.", at: start) }
                index += 1
                let flagsStart = index
                while index < bytes.count, Self.isIdentifierByte(bytes[index]) { index += 1 }
                let flags = String(decoding: bytes[flagsStart..<index], as: UTF8.self)
                tokens.append((.regex(String(decoding: pattern, as: UTF8.self), flags), start))
            default:
                let three = index + 3 <= bytes.count ? String(decoding: bytes[index..<index + 3], as: UTF8.self) : ""
                let two = index + 2 <= bytes.count ? String(decoding: bytes[index..<index + 2], as: UTF8.self) : ""
                let symbol: String
                if ["===", "!=="].contains(three) {
                    symbol = three
                } else if ["==", "!=", "<=", ">=", "&&", "||"].contains(two) {
                    symbol = two
                } else if "?:<>+-*/%!.[](),".utf8.contains(byte) {
                    symbol = String(UnicodeScalar(byte))
                } else {
                    throw error("Parse error.", at: start)
                }
                tokens.append((.symbol(symbol), start))
                index += symbol.utf8.count
            }
        }
        tokens.append((.end, bytes.count))
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "$")
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }

    private mutating func take(_ symbol: String) -> Bool {
        guard current == .symbol(symbol) else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ symbol: String) throws(DatabaseRulesError) {
        guard take(symbol) else { throw error("Parse error.") }
    }

    // MARK: Grammar (JavaScript precedence)

    /// Goes one level deeper, refusing an expression nested beyond ``maximumDepth``.
    private mutating func enter() throws(DatabaseRulesError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("Expression is nested or chained too deeply.") }
    }

    private mutating func conditional() throws(DatabaseRulesError) -> RuleExpression {
        try enter()
        defer { depth -= 1 }
        let condition = try binary(level: 0)
        guard take("?") else { return condition }
        let then = try conditional()
        try expect(":")
        return .conditional(condition, then, try conditional())
    }

    private static let levels: [[String]] = [
        ["||"], ["&&"], ["==", "!=", "===", "!=="], ["<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%"],
    ]

    private mutating func binary(level: Int) throws(DatabaseRulesError) -> RuleExpression {
        guard level < Self.levels.count else { return try unary() }
        var left = try binary(level: level + 1)
        var links = 0
        defer { depth -= links }
        while case .symbol(let symbol) = current, Self.levels[level].contains(symbol) {
            position += 1
            try enter()
            links += 1
            left = .binary(symbol, left, try binary(level: level + 1))
        }
        return left
    }

    private mutating func unary() throws(DatabaseRulesError) -> RuleExpression {
        for symbol in ["!", "-"] where take(symbol) {
            try enter()
            defer { depth -= 1 }
            return .unary(symbol, try unary())
        }
        return try postfix()
    }

    private mutating func postfix() throws(DatabaseRulesError) -> RuleExpression {
        var expression = try primary()
        var links = 0
        defer { depth -= links }
        while true {
            if current == .symbol(".") || current == .symbol("[") {
                try enter()
                links += 1
            }
            if take(".") {
                guard case .identifier(let name) = current else { throw error("Parse error.") }
                position += 1
                if take("(") {
                    expression = .call(expression, name, try arguments())
                } else {
                    expression = .member(expression, name)
                }
            } else if take("[") {
                let key = try conditional()
                try expect("]")
                if take("(") {
                    // `root["exists"]()`: a method named by a string literal.
                    guard case .literal(.string(let name)) = key else {
                        throw error("Method names must be string literals.")
                    }
                    expression = .call(expression, name, try arguments())
                } else {
                    expression = .index(expression, key)
                }
            } else {
                return expression
            }
        }
    }

    private mutating func arguments() throws(DatabaseRulesError) -> [RuleExpression] {
        var arguments: [RuleExpression] = []
        if take(")") { return arguments }
        repeat {
            arguments.append(try conditional())
        } while take(",")
        try expect(")")
        return arguments
    }

    private mutating func primary() throws(DatabaseRulesError) -> RuleExpression {
        let token = current
        position += 1
        switch token {
        case .number(let number): return .literal(.number(number))
        case .string(let string): return .literal(.string(string))
        case .regex(let pattern, let flags):
            position -= 1
            let regex = try Self.regex(pattern, flags: flags, error: error("Invalid regular expression."))
            position += 1
            return .literal(.regex(regex))
        case .identifier("true"): return .literal(.bool(true))
        case .identifier("false"): return .literal(.bool(false))
        case .identifier("null"): return .literal(.null)
        case .identifier(let name):
            guard variables.contains(name) else {
                position -= 1
                throw error("Unknown variable '\(name)'.")
            }
            return .variable(name)
        case .symbol("("):
            let inner = try conditional()
            try expect(")")
            return inner
        case .symbol("["):
            var elements: [RuleExpression] = []
            if !take("]") {
                repeat { elements.append(try conditional()) } while take(",")
                try expect("]")
            }
            return .array(elements)
        default:
            position -= 1
            throw error("Parse error.")
        }
    }

    /// A regular expression of the rules' dialect: `^` only first, `$` only last, flag `i` only.
    static func regex(_ pattern: String, flags: String, error: DatabaseRulesError) throws(DatabaseRulesError)
        -> RuleRegex
    {
        guard flags.isEmpty || flags == "i" else { throw error }
        let body = Array(pattern)
        var escaped = false
        var inClass = false
        for (index, character) in body.enumerated() {
            defer { escaped = !escaped && character == "\\" }
            guard !escaped else { continue }
            if inClass {
                if character == "]" { inClass = false }
                continue
            }
            if character == "[" {
                inClass = true
                continue
            }
            if character == "^", index != 0 { throw error }
            if character == "$", index != body.count - 1 { throw error }
            if character == "|", index + 1 < body.count, body[index + 1] == ")" { throw error }
        }
        guard let compiled = try? NSRegularExpression(pattern: pattern, options: flags == "i" ? [.caseInsensitive] : [])
        else { throw error }
        return RuleRegex(pattern: pattern, expression: compiled)
    }

    // MARK: Load-time checks

    private func type(of expression: RuleExpression) throws(DatabaseRulesError) -> RuleType {
        switch expression {
        case .literal(let value):
            switch value {
            case .bool: return .boolean
            case .number: return .number
            case .string: return .string
            case .null: return .null
            case .regex: return .regex
            default: return .any
            }
        case .variable(let name):
            switch name {
            case "root", "data", "newData": return .snapshot
            case "now": return .number
            case "query": return .query
            case "auth": return .any
            default: return .string
            }
        case .member(let receiver, let name):
            switch try type(of: receiver) {
            case .snapshot:
                throw error("No such method/property '\(name)'.")
            case .query:
                guard let field = Self.queryFields[name] else { throw error("No such method/property '\(name)'.") }
                return field
            case .string, .primitive:
                guard name == "length" else { throw error("No such method/property '\(name)'.") }
                return .number
            default:
                return .any
            }
        case .index(let receiver, let key):
            let receiverType = try type(of: receiver)
            _ = try type(of: key)
            guard receiverType == .any else { throw error("Only auth values can be indexed.") }
            return .any
        case .call(let receiver, let name, let arguments):
            for argument in arguments { _ = try type(of: argument) }
            switch try type(of: receiver) {
            case .snapshot:
                guard let result = Self.snapshotMethods[name] else {
                    throw error("No such method/property '\(name)'.")
                }
                if name == "hasChildren", let first = arguments.first {
                    guard arguments.count == 1, case .array(let names) = first, !names.isEmpty else {
                        throw error("hasChildren takes an array of child names.")
                    }
                    for element in names where ![.string, .primitive, .any].contains(try type(of: element)) {
                        throw error("hasChildren takes an array of child names.")
                    }
                }
                return result
            case .string, .primitive, .any:
                guard let result = Self.stringMethods[name] else { throw error("No such method/property '\(name)'.") }
                if name == "matches" {
                    guard arguments.count == 1, case .literal(.regex) = arguments[0] else {
                        throw error("matches takes a regular expression literal.")
                    }
                } else {
                    for argument in arguments where ![.string, .primitive, .any].contains(try type(of: argument)) {
                        throw error("\(name) takes strings.")
                    }
                }
                return result
            default:
                throw error("No such method/property '\(name)'.")
            }
        case .array:
            return .array
        case .unary(let op, let operand):
            let operandType = try type(of: operand)
            if op == "!" {
                guard operandType == .boolean else { throw error("Operand of ! must be boolean.") }
                return .boolean
            }
            return .number
        case .binary(let op, let left, let right):
            let (leftType, rightType) = (try type(of: left), try type(of: right))
            switch op {
            case "&&", "||":
                guard leftType == .boolean, rightType == .boolean else {
                    throw error("Operands of \(op) must be boolean.")
                }
                return .boolean
            case "==", "!=", "===", "!==":
                guard leftType != .snapshot, rightType != .snapshot else {
                    throw error("Snapshots cannot be compared; use val().")
                }
                return .boolean
            case "<", "<=", ">", ">=":
                guard ![leftType, rightType].contains(.boolean), ![leftType, rightType].contains(.snapshot) else {
                    throw error("Only numbers and strings can be compared with \(op).")
                }
                return .boolean
            case "+":
                if leftType == .string || rightType == .string { return .string }
                return leftType == .number && rightType == .number ? .number : .any
            default:
                return .number
            }
        case .conditional(let condition, let then, let otherwise):
            guard try type(of: condition) == .boolean else { throw error("The condition of ?: must be boolean.") }
            let (thenType, otherwiseType) = (try type(of: then), try type(of: otherwise))
            return thenType == otherwiseType ? thenType : .any
        }
    }
}

/// A compiled regular expression literal of a rule.
struct RuleRegex: @unchecked Sendable {
    let pattern: String
    // NSRegularExpression is immutable and thread-safe once made.
    let expression: NSRegularExpression

    func matches(_ string: String) -> Bool {
        expression.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
    }
}
