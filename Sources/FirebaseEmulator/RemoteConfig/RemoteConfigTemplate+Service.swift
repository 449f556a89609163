import CloudFunctions
import Foundation

extension RemoteConfigTemplate {
    /// Decodes a template from a request body: strict JSON, with only the fields the REST API
    /// knows (snake_case spellings accepted).
    ///
    /// - Throws: `ServiceError(.invalidArgument, "Invalid JSON payload received. ...")` when the body is
    ///   not JSON, names an unknown field, or does not have the template's shape.
    public static func decode(from data: Data) throws(ServiceError) -> RemoteConfigTemplate {
        let body: JSONValue
        do {
            body = try JSONValue(parsing: data)
        } catch {
            throw ServiceError(.invalidArgument, "Invalid JSON payload received. \(error).")
        }
        guard body.objectValue != nil else {
            throw ServiceError(.invalidArgument, "Invalid JSON payload received. The template must be a JSON object.")
        }
        let checked = try RemoteConfigTemplateFields.checked(body)
        do {
            return try checked.decode(as: RemoteConfigTemplate.self)
        } catch {
            throw ServiceError(.invalidArgument, "Invalid JSON payload received. \(Self.describe(error))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return "Unexpected input." }
        let (context, fallback): (DecodingError.Context?, String) =
            switch decodingError {
            case .dataCorrupted(let context): (context, "Malformed value.")
            case .keyNotFound(let key, let context): (context, "Missing field '\(key.stringValue)'.")
            case .typeMismatch(_, let context): (context, "Unexpected value type.")
            case .valueNotFound(_, let context): (context, "Unexpected null.")
            @unknown default: (nil, "Unexpected input.")
            }
        guard let context else { return fallback }
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return path.isEmpty ? context.debugDescription : "At '\(path)': \(context.debugDescription)"
    }
}


extension RemoteConfigTemplate {
    /// Evaluates every condition for an app instance fetching at `time`.
    ///
    /// - Returns: condition name → result; a condition whose expression does not parse is false, and
    ///   for duplicated names the first condition counts.
    public func evaluateConditions(for instance: RemoteConfigAppInstance, at time: Date) -> [String: Bool] {
        var results: [String: Bool] = [:]
        for condition in conditions where results[condition.name] == nil {
            let expression = try? condition.parsedExpression()
            results[condition.name] = expression?.evaluate(for: instance, at: time) ?? false
        }
        return results
    }

    /// The values an app instance fetching at `time` receives: a flat map over top-level and grouped
    /// parameters (the resolution rule: the first true condition in template order wins).
    ///
    /// For each parameter, the conditional value of the earliest true condition in template order
    /// wins, else the default value. A winning `useInAppDefault` (or no value at all) leaves the key
    /// out. Console-only value forms (personalization, rollout) are skipped as if absent.
    public func evaluate(for instance: RemoteConfigAppInstance, at time: Date) -> [String: String] {
        let results = evaluateConditions(for: instance, at: time)
        let activeConditions = conditions.map(\.name).filter { results[$0] == true }
        var values: [String: String] = [:]
        for (key, parameter) in allParameters {
            if let value = Self.resolve(parameter, activeConditions: activeConditions) {
                values[key] = value
            }
        }
        return values
    }

    private static func resolve(_ parameter: RemoteConfigParameter, activeConditions: [String]) -> String? {
        for name in activeConditions {
            switch parameter.conditionalValues[name] {
            case .value(let text): return text
            case .useInAppDefault: return nil
            case .opaque, nil: continue
            }
        }
        return parameter.defaultValue?.stringValue
    }
}

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
