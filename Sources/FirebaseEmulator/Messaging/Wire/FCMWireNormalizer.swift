import CloudFunctions
import Foundation

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

extension FCMWireNormalizer {
    /// Normalizes one field value of the given kind.
    static func normalize(_ value: JSONValue, kind: FCMWireSchema.Kind, path: String) throws(ServiceError)
        -> JSONValue
    {
        switch kind {
        case .string:
            guard case .string = value else { throw invalidValue(at: path, type: "TYPE_STRING") }
            return value
        case .bool:
            guard case .bool = value else { throw invalidValue(at: path, type: "TYPE_BOOL") }
            return value
        case .int32:
            guard let number = numeric(value), number.rounded() == number, abs(number) <= 2_147_483_647 else {
                throw invalidValue(at: path, type: "TYPE_INT32")
            }
            return .number(number)
        case .number:
            guard let number = numeric(value) else { throw invalidValue(at: path, type: "TYPE_FLOAT") }
            return .number(number)
        case .duration:
            guard case .string(let text) = value, FCMDuration(text) != nil else {
                throw invalidValue(at: path, type: "type.googleapis.com/google.protobuf.Duration")
            }
            return value
        case .stringList:
            return try list(value, path: path, kind: .string)
        case .durationList:
            return try list(value, path: path, kind: .duration)
        case .stringMap:
            return try stringMap(value, path: path)
        case .freeform:
            guard case .object = value else {
                throw invalidValue(at: path, type: "type.googleapis.com/google.protobuf.Struct")
            }
            return value
        case .enumeration(let typeName, let names):
            guard case .string(let text) = value,
                let name = names.first(where: { $0.caseInsensitiveCompare(text) == .orderedSame })
            else { throw invalidValue(at: path, type: typeName) }
            return .string(name)
        case .message(let schema):
            return try normalize(value, as: schema, path: path)
        }
    }

    private static func numeric(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let number): return number.isFinite ? number : nil
        case .string(let text): return Double(text).flatMap { $0.isFinite ? $0 : nil }
        default: return nil
        }
    }

    private static func list(_ value: JSONValue, path: String, kind: FCMWireSchema.Kind) throws(ServiceError)
        -> JSONValue
    {
        guard case .array(let elements) = value else { throw invalidValue(at: path, type: "TYPE_STRING") }
        var output: [JSONValue] = []
        output.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            output.append(try normalize(element, kind: kind, path: "\(path)[\(index)]"))
        }
        return .array(output)
    }

    /// A `map<string, string>`; entries are numbered in key order in error paths
    /// (`message.data[0].value`), since JSON object order is not kept.
    private static func stringMap(_ value: JSONValue, path: String) throws(ServiceError) -> JSONValue {
        guard case .object(let members) = value else { throw invalidValue(at: path, type: "TYPE_MESSAGE") }
        for (index, key) in members.keys.sorted().enumerated() {
            guard case .string = members[key] else {
                throw invalidValue(at: "\(path)[\(index)].value", type: "TYPE_STRING")
            }
        }
        return value
    }
}
