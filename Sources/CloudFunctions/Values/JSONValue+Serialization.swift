import CloudEvents
import Foundation

extension JSONValue {
    /// The value as compact JSON text.
    ///
    /// - Parameter sortedKeys: write object keys in byte order (the default), so that equal
    ///   values always serialise to the same bytes; `false` skips the sort.
    public func serialized(sortedKeys: Bool = true) -> String {
        var output = ""
        write(to: &output, sortedKeys: sortedKeys)
        return output
    }

    /// The value as compact UTF-8 JSON.
    public func serializedData(sortedKeys: Bool = true) -> Data {
        Data(serialized(sortedKeys: sortedKeys).utf8)
    }

    /// The value as JSON with keys in byte order, indented by two spaces per level, for people
    /// to read (the Realtime Database's `print=pretty`, the CLI's output).
    public func indented(level: Int = 0) -> String {
        let inner = String(repeating: "  ", count: level + 1)
        let outer = String(repeating: "  ", count: level)
        switch self {
        case .object(let members) where !members.isEmpty:
            let lines = members.keys.sorted().map { key in
                inner + JSONValue.string(key).serialized() + ": " + members[key]!.indented(level: level + 1)
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + outer + "}"
        case .array(let elements) where !elements.isEmpty:
            let lines = elements.map { inner + $0.indented(level: level + 1) }
            return "[\n" + lines.joined(separator: ",\n") + "\n" + outer + "]"
        default:
            return serialized()
        }
    }

    private func write(to output: inout String, sortedKeys: Bool) {
        switch self {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .number(let value):
            output += JSONValue.format(number: value)
        case .string(let value):
            CloudEvent.appendQuoted(value, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output, sortedKeys: sortedKeys)
            }
            output += "]"
        case .object(let members):
            output += "{"
            let keys = sortedKeys ? members.keys.sorted() : Array(members.keys)
            for (index, key) in keys.enumerated() {
                if index > 0 { output += "," }
                CloudEvent.appendQuoted(key, to: &output)
                output += ":"
                members[key]!.write(to: &output, sortedKeys: sortedKeys)
            }
            output += "}"
        }
    }

    static func format(number value: Double) -> String {
        if let integer = exactInteger(value) { return String(integer) }
        guard value.isFinite else { return "null" }
        return "\(value)"
    }
}
