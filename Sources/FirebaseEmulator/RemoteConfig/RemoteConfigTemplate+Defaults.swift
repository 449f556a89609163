import Foundation
import CloudFunctions

extension RemoteConfigTemplate {
    /// The explicit default values of all parameters (top-level and grouped); parameters whose
    /// default is `useInAppDefault`, a console-only form or absent are left out.
    public var defaultValues: [String: String] {
        allParameters.compactMapValues { $0.defaultValue?.stringValue }
    }

    /// Renders ``defaultValues`` for `downloadDefaults`, keys in sorted order.
    ///
    /// - JSON: a compact flat object.
    /// - PLIST: an Apple XML property list `<dict>` of `<key>`/`<string>` pairs.
    /// - XML: Android `<defaultsMap><entry><key>k</key><value>v</value></entry>...</defaultsMap>`.
    public func renderDefaults(as format: RemoteConfigDefaultsFormat) -> String {
        let entries = defaultValues.sorted { $0.key < $1.key }
        switch format {
        case .json:
            return JSONValue.object(defaultValues.mapValues { .string($0) }).serialized(sortedKeys: true)
        case .plist:
            var text = """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">

                """
            text += entries.isEmpty ? "<dict/>\n" : "<dict>\n"
            for (key, value) in entries {
                text += "\t<key>\(Self.xmlEscaped(key))</key>\n\t<string>\(Self.xmlEscaped(value))</string>\n"
            }
            text += entries.isEmpty ? "</plist>\n" : "</dict>\n</plist>\n"
            return text
        case .xml:
            var text = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<defaultsMap>\n"
            for (key, value) in entries {
                text += "    <entry>\n        <key>\(Self.xmlEscaped(key))</key>\n"
                text += "        <value>\(Self.xmlEscaped(value))</value>\n    </entry>\n"
            }
            return text + "</defaultsMap>\n"
        }
    }

    /// Escapes text for XML content: `& < > " '` as entities, carriage return as `&#13;`, and
    /// characters XML 1.0 cannot carry (other C0 controls, U+FFFE, U+FFFF) replaced by U+FFFD.
    public static func xmlEscaped(_ text: String) -> String {
        var output = ""
        output.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&apos;"
            case "\r": output += "&#13;"
            case "\t", "\n": output.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                output.unicodeScalars.append("\u{FFFD}")
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
