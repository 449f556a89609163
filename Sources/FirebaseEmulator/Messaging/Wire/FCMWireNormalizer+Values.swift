import Foundation
import CloudFunctions

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
