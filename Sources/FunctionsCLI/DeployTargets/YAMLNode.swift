/// A YAML document's tree, with its mappings in the order they are written, rendered in block
/// style. Strings are double-quoted whenever YAML could read them as something else.
indirect enum YAMLNode: ExpressibleByStringLiteral {
    case string(String)
    /// A number or boolean, written as is.
    case plain(String)
    case map([(String, YAMLNode)])
    case list([YAMLNode])

    init(stringLiteral value: String) { self = .string(value) }

    static func number(_ value: Int) -> YAMLNode { .plain(String(value)) }

    /// The document, ending with a newline.
    func rendered() -> String {
        var lines: [String] = []
        render(into: &lines, indent: "")
        return lines.joined(separator: "\n") + "\n"
    }

    private func render(into lines: inout [String], indent: String) {
        switch self {
        case .string, .plain: lines.append(indent + scalar)
        case .map(let entries):
            for (key, value) in entries { value.renderEntry(Self.quoted(key), into: &lines, indent: indent) }
        case .list(let items):
            for item in items { item.renderItem(into: &lines, indent: indent) }
        }
    }

    private func renderEntry(_ key: String, into lines: inout [String], indent: String) {
        switch self {
        case .map(let entries) where !entries.isEmpty:
            lines.append(indent + key + ":")
            render(into: &lines, indent: indent + "  ")
        case .list(let items) where !items.isEmpty:
            lines.append(indent + key + ":")
            render(into: &lines, indent: indent)
        case .map: lines.append(indent + key + ": {}")
        case .list: lines.append(indent + key + ": []")
        case .string, .plain: lines.append(indent + key + ": " + scalar)
        }
    }

    private func renderItem(into lines: inout [String], indent: String) {
        var nested: [String] = []
        switch self {
        case .map(let entries) where !entries.isEmpty: render(into: &nested, indent: indent + "  ")
        case .list(let items) where !items.isEmpty: render(into: &nested, indent: indent + "  ")
        default: nested = [indent + "  " + scalarOrEmpty]
        }
        // The first line of the item goes after the dash.
        nested[0] = indent + "- " + nested[0].dropFirst(indent.count + 2)
        lines += nested
    }

    private var scalarOrEmpty: String {
        switch self {
        case .map: "{}"
        case .list: "[]"
        default: scalar
        }
    }

    private var scalar: String {
        switch self {
        case .string(let text): Self.quoted(text)
        case .plain(let text): text
        default: ""
        }
    }

    /// `text` as a YAML scalar: plain when that reads back as the same string, else double-quoted.
    static func quoted(_ text: String) -> String {
        // Plain only when it starts with a letter (no number, date, anchor or indicator) and
        // holds nothing YAML reads specially.
        let keywords = ["null", "true", "false", "yes", "no", "on", "off", "y", "n"]
        let plain = text.first.map { $0.isASCII && ($0.isLetter || $0 == "/" || $0 == "_") } == true
            && !keywords.contains(text.lowercased()) && text.last != " "
            && !text.contains(": ") && !text.contains(" #") && !text.contains("\t")
            && text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
        if plain { return text }
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    escaped += "\\x" + String(scalar.value, radix: 16).leftPadded(to: 2)
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped + "\""
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
