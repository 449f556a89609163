import CloudFunctions
import Foundation

/// Converts a Parse Config (`GET /parse/config`: `{"params": {...}}`) into Remote Config parameters.
///
/// Each param becomes a parameter whose default value is the param as text, typed as the REST API
/// types it: strings `STRING`; Booleans `BOOLEAN` (`true`/`false`); numbers `NUMBER`; arrays and
/// objects `JSON`. Parse's typed values keep their meaning: a `Date` becomes its ISO string, a
/// `File` its URL, a `GeoPoint` and anything else JSON. `masterKeyOnly` params are left out (Remote
/// Config values are readable by every app), unless `includeMasterKeyOnly`.
public enum ParseConfigExport {
    /// The parameters as template JSON (`{"key": {"defaultValue": {"value"}, "valueType"}}`).
    ///
    /// - Throws: `INVALID_PARSE_EXPORT : …` when the export has no `params` object.
    public static func parameters(from export: JSONValue, includeMasterKeyOnly: Bool = false) throws -> JSONValue {
        guard let params = export["params"]?.objectValue else {
            throw ServiceError(.invalidArgument,
                "INVALID_PARSE_EXPORT : expected {\"params\": {...}} from /parse/config")
        }
        let masterOnly = export["masterKeyOnly"]?.objectValue ?? [:]
        var parameters: [String: JSONValue] = [:]
        for (key, value) in params where value != .null {
            if !includeMasterKeyOnly, masterOnly[key]?.boolValue == true { continue }
            let (text, type) = converted(value)
            parameters[key] = ["defaultValue": ["value": .string(text)], "valueType": .string(type)]
        }
        return .object(parameters)
    }

    private static func converted(_ value: JSONValue) -> (String, String) {
        switch value {
        case .string(let text): return (text, "STRING")
        case .bool(let flag): return (flag ? "true" : "false", "BOOLEAN")
        case .number: return (value.serialized(), "NUMBER")
        case .object(let members):
            switch members["__type"]?.stringValue {
            case "Date": return (members["iso"]?.stringValue ?? "", "STRING")
            case "File": return (members["url"]?.stringValue ?? members["name"]?.stringValue ?? "", "STRING")
            default: return (value.serialized(sortedKeys: true), "JSON")
            }
        default:
            return (value.serialized(sortedKeys: true), "JSON")
        }
    }
}
