import CloudFunctions
import Foundation

/// Converts a Parse class export (`{"results": [...]}` or an array of objects) into Realtime
/// Database JSON: one child per object, keyed by `objectId`.
///
/// Parse's typed values become plain JSON: a `Date` its ISO string, a `Pointer` the pointed
/// object's id, a `File` its URL, a `GeoPoint` `{latitude, longitude}`, `Bytes` their base64
/// string. `ACL` and `Relation` fields, which have no database counterpart, are dropped, as is
/// `objectId` itself (it is the key); `createdAt`/`updatedAt` are kept as ISO strings.
public enum ParseClassExport {
    /// The objects as `{objectId: {...}}`.
    ///
    /// - Throws: `INVALID_PARSE_EXPORT : …` for an export that is not a list of objects with ids, or a
    ///   field name the database cannot hold.
    public static func children(from export: JSONValue) throws -> [String: JSONValue] {
        guard let records = export["results"]?.arrayValue ?? export.arrayValue else {
            throw invalid("expected {\"results\": [...]} or an array of Parse objects")
        }
        var children: [String: JSONValue] = [:]
        for (index, record) in records.enumerated() {
            guard let fields = record.objectValue else { throw invalid("object \(index) is not a JSON object") }
            guard let id = fields["objectId"]?.stringValue, !id.isEmpty else {
                throw invalid("object \(index) has no objectId")
            }
            var child: [String: JSONValue] = [:]
            for (name, value) in fields where name != "objectId" && name != "ACL" {
                guard !name.isEmpty, !name.contains(where: { ".$#[]/".contains($0) }) else {
                    throw invalid("object \(id) has a field named '\(name)', which cannot be a database key")
                }
                if let converted = convert(value) { child[name] = converted }
            }
            children[id] = .object(child)
        }
        return children
    }

    private static func convert(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .null:
            return nil
        case .array(let elements):
            return .array(elements.map { convert($0) ?? .null })
        case .object(let members):
            switch members["__type"]?.stringValue {
            case "Date": return members["iso"]
            case "Pointer": return members["objectId"]
            case "File": return members["url"] ?? members["name"]
            case "GeoPoint":
                return ["latitude": members["latitude"] ?? .null, "longitude": members["longitude"] ?? .null]
            case "Bytes": return members["base64"]
            case "Relation": return nil
            default:
                let converted = members.compactMapValues(convert)
                return converted.isEmpty ? nil : .object(converted)
            }
        default:
            return value
        }
    }

    private static func invalid(_ reason: String) -> ServiceError {
        ServiceError(.invalidArgument, "INVALID_PARSE_EXPORT : \(reason)")
    }
}
