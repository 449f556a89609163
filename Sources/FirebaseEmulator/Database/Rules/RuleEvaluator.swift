import CloudFunctions
import Foundation

/// A value while a rule runs.
enum RuleValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// A node of `auth` (an object or an array): members may be read, never compared as values.
    case json(JSONValue)
    /// `root`, `data` or `newData`, or a snapshot reached from one.
    case snapshot(tree: JSONValue, path: [String])
    case query([String: RuleValue])
    case regex(RuleRegex)

    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .array, .object: self = .json(json)
        }
    }
}

/// A runtime error: the whole rule is false.
struct RuleRuntimeError: Error {}

/// Runs one rule expression with its variables.
struct RuleEvaluator {
    var variables: [String: RuleValue]

    /// Whether `expression` evaluates to `true`; anything else, or an error, is `false`.
    func allows(_ expression: RuleExpression) -> Bool {
        guard case .bool(true)? = try? evaluate(expression) else { return false }
        return true
    }

    private func evaluate(_ expression: RuleExpression) throws(RuleRuntimeError) -> RuleValue {
        switch expression {
        case .literal(let value):
            return value
        case .variable(let name):
            return variables[name] ?? .null
        case .member(let receiver, let name):
            return try member(of: try evaluate(receiver), name)
        case .index(let receiver, let key):
            switch try evaluate(key) {
            case .string(let name): return try member(of: try evaluate(receiver), name)
            case .number(let number): return try member(of: try evaluate(receiver), Self.text(number))
            default: throw RuleRuntimeError()
            }
        case .call(let receiver, let name, let arguments):
            let target = try evaluate(receiver)
            var values: [RuleValue] = []
            for argument in arguments {
                if case .array(let elements) = argument {
                    var names: [RuleValue] = []
                    for element in elements { names.append(try evaluate(element)) }
                    values.append(.json(.array(names.map { value in
                        if case .string(let text) = value { return .string(text) }
                        return .null
                    })))
                    for name in names { guard case .string = name else { throw RuleRuntimeError() } }
                } else {
                    values.append(try evaluate(argument))
                }
            }
            return try call(target, name, values)
        case .array:
            throw RuleRuntimeError()
        case .unary(let op, let operand):
            let value = try evaluate(operand)
            switch (op, value) {
            case ("!", .bool(let bool)): return .bool(!bool)
            case ("-", .number(let number)): return .number(-number)
            default: throw RuleRuntimeError()
            }
        case .binary(let op, let left, let right):
            if op == "&&" || op == "||" {
                guard case .bool(let first) = try evaluate(left) else { throw RuleRuntimeError() }
                if op == "&&" && !first { return .bool(false) }
                if op == "||" && first { return .bool(true) }
                guard case .bool(let second) = try evaluate(right) else { throw RuleRuntimeError() }
                return .bool(second)
            }
            return try binary(op, try evaluate(left), try evaluate(right))
        case .conditional(let condition, let then, let otherwise):
            guard case .bool(let chosen) = try evaluate(condition) else { throw RuleRuntimeError() }
            return try evaluate(chosen ? then : otherwise)
        }
    }

    private func member(of value: RuleValue, _ name: String) throws(RuleRuntimeError) -> RuleValue {
        switch value {
        case .null:
            return .null
        case .json(.object(let members)):
            return members[name].map(RuleValue.init) ?? .null
        case .json(.array(let elements)):
            guard let index = Int(name), elements.indices.contains(index) else { return .null }
            return RuleValue(elements[index])
        case .string(let string) where name == "length":
            return .number(Double(string.utf16.count))
        case .query(let fields):
            return fields[name] ?? .null
        default:
            throw RuleRuntimeError()
        }
    }

    private func call(_ target: RuleValue, _ name: String, _ arguments: [RuleValue]) throws(RuleRuntimeError)
        -> RuleValue
    {
        switch target {
        case .snapshot(let tree, let path):
            return try Self.snapshotMethod(tree: tree, path: path, name, arguments)
        case .string(let string):
            return try Self.stringMethod(string, name, arguments)
        default:
            throw RuleRuntimeError()
        }
    }

    private static func snapshotMethod(tree: JSONValue, path: [String], _ name: String, _ arguments: [RuleValue])
        throws(RuleRuntimeError) -> RuleValue
    {
        let node = DatabaseTree.storedValue(in: tree, at: DatabasePath(uncheckedSegments: path))
        func childPath(_ argument: RuleValue?) throws(RuleRuntimeError) -> [String] {
            guard case .string(let relative)? = argument else { throw RuleRuntimeError() }
            return path + relative.split(separator: "/").map(String.init)
        }
        func exists(_ segments: [String]) -> Bool {
            !DatabaseTree.storedValue(in: tree, at: DatabasePath(uncheckedSegments: segments)).isNull
        }
        let value = leafValue(node)
        switch name {
        case "val": return value.map(RuleValue.init) ?? (node.isNull ? .null : .json(node))
        case "child": return .snapshot(tree: tree, path: try childPath(arguments.first))
        case "parent":
            guard !path.isEmpty else { throw RuleRuntimeError() }
            return .snapshot(tree: tree, path: Array(path.dropLast()))
        case "hasChild": return .bool(exists(try childPath(arguments.first)))
        case "hasChildren":
            guard let names = arguments.first else {
                return .bool(value == nil && !node.isNull)
            }
            guard case .json(.array(let list)) = names else { throw RuleRuntimeError() }
            for name in list {
                guard case .string(let child) = name else { throw RuleRuntimeError() }
                if !exists(path + child.split(separator: "/").map(String.init)) { return .bool(false) }
            }
            return .bool(true)
        case "exists": return .bool(!node.isNull)
        case "getPriority": return node[".priority"].map(RuleValue.init) ?? .null
        case "isNumber": return .bool(value?.numberValue != nil)
        case "isString": return .bool(value?.stringValue != nil)
        case "isBoolean": return .bool(value?.boolValue != nil)
        default: throw RuleRuntimeError()
        }
    }

    /// The primitive at a node (a leaf, or `{".value": x, ".priority": p}`); `nil` for a node
    /// with children or no data.
    private static func leafValue(_ node: JSONValue) -> JSONValue? {
        switch node {
        case .null, .array: return nil
        case .object(let members):
            return members[".value"]
        default: return node
        }
    }

    private static func stringMethod(_ string: String, _ name: String, _ arguments: [RuleValue])
        throws(RuleRuntimeError) -> RuleValue
    {
        func text(_ index: Int) throws(RuleRuntimeError) -> String {
            guard arguments.indices.contains(index), case .string(let value) = arguments[index] else {
                throw RuleRuntimeError()
            }
            return value
        }
        switch name {
        case "contains": return .bool(string.contains(try text(0)))
        case "beginsWith": return .bool(string.hasPrefix(try text(0)))
        case "endsWith": return .bool(string.hasSuffix(try text(0)))
        case "replace": return .string(string.replacingOccurrences(of: try text(0), with: try text(1)))
        case "toLowerCase": return .string(string.lowercased())
        case "toUpperCase": return .string(string.uppercased())
        case "matches":
            guard case .regex(let regex)? = arguments.first else { throw RuleRuntimeError() }
            return .bool(regex.matches(string))
        default: throw RuleRuntimeError()
        }
    }

    private func binary(_ op: String, _ left: RuleValue, _ right: RuleValue) throws(RuleRuntimeError) -> RuleValue {
        switch op {
        case "==", "===": return .bool(try Self.equal(left, right))
        case "!=", "!==": return .bool(!(try Self.equal(left, right)))
        case "<", "<=", ">", ">=":
            let order: ComparisonResult
            switch (left, right) {
            case (.number(let a), .number(let b)):
                if a.isNaN || b.isNaN { return .bool(false) }
                order = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
            case (.string(let a), .string(let b)):
                order = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
            default: throw RuleRuntimeError()
            }
            switch op {
            case "<": return .bool(order == .orderedAscending)
            case "<=": return .bool(order != .orderedDescending)
            case ">": return .bool(order == .orderedDescending)
            default: return .bool(order != .orderedAscending)
            }
        case "+":
            switch (left, right) {
            case (.number(let a), .number(let b)): return .number(a + b)
            case (.string(let a), .string(let b)): return .string(a + b)
            case (.string(let a), .number(let b)): return .string(a + Self.text(b))
            case (.number(let a), .string(let b)): return .string(Self.text(a) + b)
            default: throw RuleRuntimeError()
            }
        default:
            guard case .number(let a) = left, case .number(let b) = right else { throw RuleRuntimeError() }
            switch op {
            case "-": return .number(a - b)
            case "*": return .number(a * b)
            case "/": return .number(b == 0 ? .nan : a / b)
            default: return .number(b == 0 ? .nan : a.truncatingRemainder(dividingBy: b))
            }
        }
    }

    private static func equal(_ left: RuleValue, _ right: RuleValue) throws(RuleRuntimeError) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.json(let a), .json(let b)): return a == b
        case (.snapshot, _), (_, .snapshot), (.regex, _), (_, .regex): throw RuleRuntimeError()
        default: return false
        }
    }

    /// A number as JavaScript writes it in a string (`1`, not `1.0`).
    static func text(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if let integer = Int64(exactly: number) { return String(integer) }
        if number == number.rounded(), abs(number) < 1e21 { return String(format: "%.0f", number) }
        return "\(number)"
    }
}
