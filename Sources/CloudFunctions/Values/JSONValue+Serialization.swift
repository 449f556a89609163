import CloudEvents
import Foundation

extension JSONValue {
    /// The value as compact JSON text.
    ///
    /// - Parameter sortedKeys: write object keys in byte order (the default), so that equal
    ///   values always serialise to the same bytes; `false` skips the sort.
    public func serialized(sortedKeys: Bool = true) -> String {
        String(decoding: serializedBytes(sortedKeys: sortedKeys), as: UTF8.self)
    }

    /// The value as compact UTF-8 JSON.
    public func serializedData(sortedKeys: Bool = true) -> Data {
        Data(serializedBytes(sortedKeys: sortedKeys))
    }

    /// The value as compact UTF-8 JSON bytes.
    package func serializedBytes(sortedKeys: Bool = true) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        write(to: &output, sortedKeys: sortedKeys)
        return output
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

    /// Writes the value as compact JSON, in bytes: appending to an array costs far less than
    /// appending to a `String`, and the database writes, events and REST answers of the
    /// emulator all go through here.
    private func write(to output: inout [UInt8], sortedKeys: Bool) {
        switch self {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value):
            output.append(contentsOf: JSONValue.format(number: value).utf8)
        case .string(let value):
            CloudEvent.appendQuoted(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output, sortedKeys: sortedKeys)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            var first = true
            func member(_ key: String, _ value: JSONValue) {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                CloudEvent.appendQuoted(key, to: &output)
                output.append(UInt8(ascii: ":"))
                value.write(to: &output, sortedKeys: sortedKeys)
            }
            if sortedKeys {
                for key in members.keys.sorted() { member(key, members[key]!) }
            } else {
                for (key, value) in members { member(key, value) }
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func format(number value: Double) -> String {
        if let integer = exactInteger(value) { return String(integer) }
        guard value.isFinite else { return "null" }
        return "\(value)"
    }
}
