import CloudEvents
import CloudFunctions

/// The field names a Remote Config template may have, at each place in it, as the REST API
/// knows them. A publish with any other name (a typo such as `paramters`) is refused with the
/// API's `Unknown name` error instead of being read as an empty template; snake_case
/// spellings, which the API also accepts, are rewritten to their camelCase names.
enum RemoteConfigTemplateFields {
    private indirect enum Shape: Sendable {
        /// An object with these fields.
        case object([String: Shape])
        /// An object whose keys are free (parameter keys, condition names) and values of one shape.
        case map(Shape)
        case list(Shape)
        /// Anything (a scalar, or content the emulator keeps as it is).
        case any
        /// An RFC 3339 timestamp string, at most nanosecond precision (a proto `Timestamp`).
        case timestamp
    }

    private static let value: Shape = .object([
        "value": .any, "useInAppDefault": .any, "personalizationValue": .any, "rolloutValue": .any,
    ])
    private static let parameter: Shape = .object([
        "defaultValue": value, "conditionalValues": .map(value), "description": .any, "valueType": .any,
    ])
    private static let template: Shape = .object([
        "conditions": .list(.object(["name": .any, "expression": .any, "tagColor": .any])),
        "parameters": .map(parameter),
        "parameterGroups": .map(.object(["description": .any, "parameters": .map(parameter)])),
        "version": .object([
            "versionNumber": .any, "updateTime": .timestamp, "description": .any, "updateOrigin": .any,
            "updateType": .any, "rollbackSource": .any, "isLegacy": .any,
            "updateUser": .object(["email": .any, "name": .any, "imageUrl": .any]),
        ]),
    ])

    /// The template body with snake_case names rewritten.
    ///
    /// - Throws: `INVALID_ARGUMENT` naming the first unknown field and where it is.
    static func checked(_ body: JSONValue) throws(ServiceError) -> JSONValue {
        try check(body, as: template, at: "remote_config")
    }

    private static func check(_ value: JSONValue, as shape: Shape, at path: String) throws(ServiceError) -> JSONValue {
        switch (shape, value) {
        case (.object(let fields), .object(let members)):
            var result: [String: JSONValue] = [:]
            for key in members.keys.sorted() {
                let name = camelCase(key)
                guard let field = fields[name] else {
                    throw ServiceError(.invalidArgument, 
                        "Invalid JSON payload received. Unknown name \"\(key)\" at '\(path)': Cannot find field.")
                }
                result[name] = try check(members[key]!, as: field, at: path.isEmpty ? name : "\(path).\(name)")
            }
            return .object(result)
        case (.map(let element), .object(let members)):
            var result: [String: JSONValue] = [:]
            for (key, member) in members { result[key] = try check(member, as: element, at: "\(path)[\(key)]") }
            return .object(result)
        case (.list(let element), .array(let elements)):
            var result: [JSONValue] = []
            for (index, member) in elements.enumerated() {
                result.append(try check(member, as: element, at: "\(path)[\(index)]"))
            }
            return .array(result)
        case (.timestamp, .null):
            return value
        case (.timestamp, _):
            let text = value.stringValue ?? value.serialized()
            let fraction = text.split(separator: ".", maxSplits: 1).dropFirst().first?.prefix(while: \.isNumber)
            guard value.stringValue != nil, (fraction?.count ?? 0) <= 9, RFC3339Timestamp.date(from: text) != nil else {
                throw ServiceError(.invalidArgument,
                    "Invalid JSON payload received. Invalid value at '\(path)' "
                        + "(type.googleapis.com/google.protobuf.Timestamp), \(value.serialized())")
            }
            return value
        default:
            // Wrong types are reported by the decoder, with the field's path.
            return value
        }
    }

    /// `default_value` → `defaultValue`; camelCase names stay as they are.
    private static func camelCase(_ name: String) -> String {
        guard name.contains("_") else { return name }
        var result = ""
        var upper = false
        for character in name {
            if character == "_" {
                upper = true
            } else {
                result += upper ? character.uppercased() : String(character)
                upper = false
            }
        }
        return result
    }
}
