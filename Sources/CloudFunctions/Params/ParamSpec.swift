import Foundation

/// A declared param as the manifest lists it (`params`, firebase-functions' `WireParamSpec`),
/// and the rules a deploy resolves its value by.
public struct ParamSpec: Sendable, Hashable, Codable {
    /// The kind of value.
    public enum ValueType: String, Sendable, Hashable, Codable {
        case string, int, float, boolean, list, secret
    }

    /// The environment variable's name.
    public var name: String
    /// The kind of value.
    public var type: ValueType
    /// The value used when none is given, as JSON.
    public var defaultValue: JSONValue?
    /// A short name for people.
    public var label: String?
    /// What it is for.
    public var description: String?
    /// How a value is checked, as firebase-functions writes it: `{"text": {"validationRegex", …}}`
    /// or `{"select": {"options": [{"value"}]}}`.
    public var input: JSONValue?

    enum CodingKeys: String, CodingKey {
        case name, type, label, description, input
        case defaultValue = "default"
    }

    /// Creates a spec.
    public init(name: String, type: ValueType, defaultValue: JSONValue?, label: String?, description: String?, input: JSONValue?) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.label = label
        self.description = description
        self.input = input
    }

    /// Keys the platform sets itself, which a param or a `.env` file may not use (the Firebase
    /// CLI's list).
    public static let reservedKeys: Set<String> = [
        "FIREBASE_CONFIG", "CLOUD_RUNTIME_CONFIG", "EVENTARC_CLOUD_EVENT_SOURCE", "ENTRY_POINT", "GCP_PROJECT",
        "GCLOUD_PROJECT", "GOOGLE_CLOUD_PROJECT", "FUNCTION_TRIGGER_TYPE", "FUNCTION_NAME", "FUNCTION_MEMORY_MB",
        "FUNCTION_TIMEOUT_SEC", "FUNCTION_IDENTITY", "FUNCTION_REGION", "FUNCTION_TARGET", "FUNCTION_SIGNATURE_TYPE",
        "K_SERVICE", "K_REVISION", "PORT", "K_CONFIGURATION",
    ]
    /// Prefixes reserved for the platform.
    public static let reservedPrefixes = ["X_GOOGLE_", "FIREBASE_", "EXT_", "KIT_"]
    /// What this runtime's workers read to know where they run (`FUNCTIONS_EMULATOR`,
    /// `FUNCTIONS_DEBUG`, `HOST`, `LOG_FORMAT`, an emulator's address, the credentials), which
    /// a `.env` file may not set: deployed, it would change how the worker checks tokens or
    /// where its calls go.
    public static let runtimeKeys: Set<String> = ["HOST", "LOG_FORMAT", "GOOGLE_APPLICATION_CREDENTIALS", "GCE_METADATA_HOST"]

    /// Why `key` cannot name a param or a `.env` value (the Firebase CLI's rules and words),
    /// `nil` when it can.
    public static func problem(withKey key: String) -> String? {
        if reservedKeys.contains(key) { return "Key \(key) is reserved for internal use." }
        let valid = key.first.map { $0 == "_" || ("A"..."Z").contains($0) } == true
            && key.allSatisfy { $0 == "_" || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        if !valid {
            return "Key \(key) must start with an uppercase ASCII letter or underscore, and then consist of "
                + "uppercase ASCII letters, digits, and underscores."
        }
        if reservedPrefixes.contains(where: key.hasPrefix) {
            return "Key \(key) starts with a reserved prefix (\(reservedPrefixes.joined(separator: " ")))"
        }
        if runtimeKeys.contains(key) || key.hasPrefix("FUNCTIONS_") || key.hasSuffix("_EMULATOR_HOST") {
            return "Key \(key) is reserved for this runtime (FUNCTIONS_*, *_EMULATOR_HOST, "
                + runtimeKeys.sorted().joined(separator: ", ") + ")."
        }
        return nil
    }

    /// The environment form of a value written in a `.env` file, or why it is not one:
    /// a number for `int` and `float`, `true`/`false` (also `yes`, `no`, `y`, `n`, `1`, `0`)
    /// for `boolean`, `a,b` or a JSON array for `list` (which becomes a JSON array), checked
    /// against the pattern or choices of ``input``.
    public func environmentValue(of text: String) -> Result<String, ParamValueError> {
        let value: String
        switch type {
        case .string, .secret:
            value = text
        case .int:
            guard let number = Int(environmentValue: text) else { return .failure(error("a whole number", text)) }
            value = String(number)
        case .float:
            guard let number = Double(environmentValue: text) else { return .failure(error("a number", text)) }
            value = String(number)
        case .boolean:
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "yes", "y", "1": value = "true"
            case "false", "no", "n", "0": value = "false"
            default: return .failure(error("true or false", text))
            }
        case .list:
            let items: [String]
            if text.trimmingCharacters(in: .whitespaces).hasPrefix("[") {
                // A JSON array, or one written with single quotes, as the Firebase CLI reads it.
                guard let parsed = [String](environmentValue: text)
                    ?? [String](environmentValue: text.replacingOccurrences(of: "'", with: "\""))
                else {
                    return .failure(error("a list (a,b,c or a JSON array of strings)", text))
                }
                items = parsed
            } else {
                items = text.isEmpty ? [] : text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
            value = JSONValue.array(items.map(JSONValue.string)).serialized()
        }
        if let problem = inputProblem(text: text, value: value) { return .failure(problem) }
        return .success(value)
    }

    /// The environment form of ``defaultValue``, when there is one.
    public var defaultEnvironmentValue: String? {
        guard let defaultValue else { return nil }
        switch defaultValue {
        case .string(let text): return text
        case .bool(let flag): return String(flag)
        case .number(let number) where type == .int: return Int(exactly: number).map(String.init) ?? String(number)
        case .number(let number): return String(number)
        default: return defaultValue.serialized()
        }
    }

    private func error(_ expected: String, _ text: String) -> ParamValueError {
        ParamValueError(name: name, message: "\(name) must be \(expected), not '\(text)'")
    }

    private func inputProblem(text: String, value: String) -> ParamValueError? {
        if let options = (input?["select"]?["options"] ?? input?["multiSelect"]?["options"])?.arrayValue {
            let allowed = options.compactMap { $0["value"] }.map { $0.stringValue ?? $0.serialized() }
            let given = type == .list ? ([String](environmentValue: value) ?? []) : [text]
            if let wrong = given.first(where: { !allowed.contains($0) }) {
                return ParamValueError(name: name,
                    message: "\(name) must be one of \(allowed.joined(separator: ", ")), not '\(wrong)'")
            }
        }
        if let pattern = input?["text"]?["validationRegex"]?.stringValue {
            guard let regex = try? NSRegularExpression(pattern: pattern) else {
                return ParamValueError(name: name, message: "\(name)'s pattern '\(pattern)' is not a regular expression")
            }
            if regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil {
                let message = input?["text"]?["validationErrorMessage"]?.stringValue
                return ParamValueError(name: name,
                    message: "\(name) '\(text)' does not match \(pattern)" + (message.map { ": \($0)" } ?? ""))
            }
        }
        return nil
    }
}

/// A param value that does not fit its declaration.
public struct ParamValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The param.
    public var name: String
    /// What is wrong, in words.
    public var message: String

    public var description: String { message }
}
