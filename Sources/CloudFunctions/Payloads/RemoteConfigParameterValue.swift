import Foundation

/// A parameter value: an explicit string, "use the in-app default", or a console-only form.
public enum RemoteConfigParameterValue: Sendable, Hashable {
    /// `{"value": "..."}`.
    case value(String)
    /// `{"useInAppDefault": true}`: the parameter is left out of fetch results.
    case useInAppDefault
    /// Any other object, such as `{"personalizationValue": {...}}` or `{"rolloutValue": {...}}`, kept
    /// verbatim. The emulator does not evaluate these: they never supply a value.
    case opaque([String: JSONValue])

    /// The explicit string, when this is a ``value(_:)``.
    public var stringValue: String? {
        if case .value(let text) = self { return text }
        return nil
    }
}

extension RemoteConfigParameterValue: Codable {
    /// Decodes `{"value": s}`, `{"useInAppDefault": true}` or keeps any other object as ``opaque(_:)``.
    ///
    /// - Throws: `DecodingError` when the value is not a JSON object, `value` is not a string or
    ///   `useInAppDefault` is not a Boolean.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(JSONValue.self)
        guard let object = raw.objectValue else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a parameter value is an object")
        }
        if let value = object["value"] {
            guard let text = value.stringValue else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'value' must be a string")
            }
            self = .value(text)
        } else if let flag = object["useInAppDefault"], flag.boolValue == nil {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'useInAppDefault' must be a bool")
        } else if object["useInAppDefault"]?.boolValue == true {
            self = .useInAppDefault
        } else {
            self = .opaque(object)
        }
    }

    /// Encodes the wire object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .value(let text): try container.encode(["value": text])
        case .useInAppDefault: try container.encode(["useInAppDefault": true])
        case .opaque(let object): try container.encode(object)
        }
    }
}
