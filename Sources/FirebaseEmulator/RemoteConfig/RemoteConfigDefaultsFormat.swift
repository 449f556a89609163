import Foundation
import CloudFunctions

/// The `format` of `remoteConfig:downloadDefaults`.
public enum RemoteConfigDefaultsFormat: String, Sendable, Hashable, CaseIterable {
    /// A flat JSON object `{key: defaultValue}`.
    case json = "JSON"
    /// An Apple XML property list of strings.
    case plist = "PLIST"
    /// An Android `<defaultsMap>` resource.
    case xml = "XML"

    /// Reads the `format` query parameter.
    ///
    /// - Throws: `ServiceError.invalidArgument` when it is missing, `FORMAT_UNSPECIFIED` or unknown.
    public init(queryValue: String?) throws(ServiceError) {
        guard let queryValue, !queryValue.isEmpty, queryValue != "FORMAT_UNSPECIFIED" else {
            throw ServiceError(.invalidArgument, "[VALIDATION_ERROR]: format must be one of XML, PLIST or JSON")
        }
        guard let format = RemoteConfigDefaultsFormat(rawValue: queryValue) else {
            throw ServiceError(.invalidArgument, "Invalid value at 'format' (TYPE_ENUM), \"\(queryValue)\"")
        }
        self = format
    }

    /// The `Content-Type` to answer with.
    public var contentType: String {
        switch self {
        case .json: "application/json"
        case .plist: "application/xml"
        case .xml: "application/xml"
        }
    }
}
