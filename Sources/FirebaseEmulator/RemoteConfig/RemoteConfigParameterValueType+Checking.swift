import Foundation
import CloudFunctions

extension RemoteConfigParameterValueType {
    /// Why `text` is not a value of this type, e.g. `'abc' is not a number`; `nil` when it is one.
    ///
    /// `NUMBER` takes finite decimal numbers (`12`, `-3.5`, `1e3`), `BOOLEAN` takes `true`/`false`
    /// in any letter case, `JSON` takes any JSON text; other types take anything.
    public func problem(with text: String) -> String? {
        switch self {
        case .number:
            return RemoteConfigConditionExpression.parseNumber(text) == nil ? "'\(text)' is not a number" : nil
        case .boolean:
            return ["true", "false"].contains(text.lowercased()) ? nil : "'\(text)' is not a boolean"
        case .json:
            return (try? JSONValue(parsing: text)) == nil ? "'\(text)' is not valid JSON" : nil
        default:
            return nil
        }
    }
}

extension RemoteConfigParameter {
    /// The explicit value strings: the default and every conditional value.
    public var valueStrings: [String] {
        ([defaultValue].compactMap { $0?.stringValue }) + conditionalValues.values.compactMap(\.stringValue)
    }
}
