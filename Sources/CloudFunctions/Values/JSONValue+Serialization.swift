import Foundation

extension JSONValue {
    /// The value as compact JSON text.
    ///
    /// - Parameter sortedKeys: write object keys in byte order, for a stable form.
    public func serialized(sortedKeys: Bool = false) -> String {
        var output = ""
        write(to: &output, sortedKeys: sortedKeys)
        return output
    }

    /// The value as compact UTF-8 JSON.
    public func serializedData(sortedKeys: Bool = false) -> Data {
        Data(serialized(sortedKeys: sortedKeys).utf8)
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
            JSONValue.writeQuoted(value, to: &output)
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
                JSONValue.writeQuoted(key, to: &output)
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

    static func writeQuoted(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
