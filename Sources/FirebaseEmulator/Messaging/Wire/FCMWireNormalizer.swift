import Foundation
import CloudFunctions

/// Turns proto3 JSON as clients send it into the canonical lowerCamelCase form.
///
/// Accepts both JSON names of each field (`fcmOptions` / `fcm_options`), drops `null` fields,
/// checks every value's type and rejects unknown fields with the messages of Google's JSON
/// transcoder (`Invalid JSON payload received. Unknown name "x" at 'message': Cannot find
/// field.`). Map and `Struct` contents (data keys, APNs headers, the APNs payload) are kept
/// verbatim.
package enum FCMWireNormalizer {
    /// Normalizes `value` as a message of `schema`.
    ///
    /// - Parameters:
    ///   - value: the JSON the client sent.
    ///   - schema: the message type expected.
    ///   - path: the dotted path of `value` in the request (`""` for the request body).
    /// - Returns: the canonical object, keys in lowerCamelCase.
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` with FCM details when the JSON does not fit.
    public static func normalize(_ value: JSONValue, as schema: FCMWireSchema, path: String = "")
        throws(ServiceError) -> JSONValue
    {
        guard case .object(let members) = value else {
            if path.isEmpty {
                throw FCMErrorCode.invalidArgument("Invalid JSON payload received. Expected an object.")
            }
            throw invalidValue(at: path, type: schema.typeName)
        }
        var output: [String: JSONValue] = [:]
        var spellings: [String: String] = [:]
        for key in members.keys.sorted() {
            guard let field = schema.lookup[key] else {
                let location = path.isEmpty ? "" : " at '\(path)'"
                throw FCMErrorCode.invalidArgument(
                    "Invalid JSON payload received. Unknown name \"\(key)\"\(location): Cannot find field.",
                    field: path.isEmpty ? key : path)
            }
            if let earlier = spellings[field.name] {
                throw FCMErrorCode.invalidArgument(
                    "Invalid JSON payload received. Duplicate field \"\(key)\" (also given as \"\(earlier)\").",
                    field: join(path, field.name))
            }
            spellings[field.name] = key
            guard let member = members[key], !member.isNull else { continue }
            output[field.name] = try normalize(member, kind: field.kind, path: join(path, field.name))
        }
        return .object(output)
    }

    /// Joins a dotted path and a field name.
    static func join(_ path: String, _ name: String) -> String {
        path.isEmpty ? name : path + "." + name
    }

    /// The transcoder's type error: `Invalid value at 'path' (TYPE)`.
    static func invalidValue(at path: String, type: String) -> ServiceError {
        FCMErrorCode.invalidArgument("Invalid value at '\(path)' (\(type))", field: path)
    }
}
