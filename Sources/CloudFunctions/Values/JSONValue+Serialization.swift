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

    /// Appends the string as a JSON string literal. Only `"`, `\\` and control characters are
    /// escaped, so the text between them is appended as it is, in runs of UTF-8 (a string with
    /// nothing to escape in one append); a run ends only before an ASCII byte, so each is valid.
    static func writeQuoted(_ string: String, to output: inout String) {
        output += "\""
        var string = string
        let clean = string.withUTF8 { bytes -> Bool in
            var run = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
                if run < index { output += String(decoding: UnsafeBufferPointer(rebasing: bytes[run..<index]), as: UTF8.self) }
                switch byte {
                case UInt8(ascii: "\""): output += "\\\""
                case UInt8(ascii: "\\"): output += "\\\\"
                case UInt8(ascii: "\n"): output += "\\n"
                case UInt8(ascii: "\r"): output += "\\r"
                case UInt8(ascii: "\t"): output += "\\t"
                default:
                    let hex = String(byte, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                run = index + 1
            }
            if run == 0 { return true }
            if run < bytes.count {
                output += String(decoding: UnsafeBufferPointer(rebasing: bytes[run...]), as: UTF8.self)
            }
            return false
        }
        if clean { output += string }
        output += "\""
    }
}
