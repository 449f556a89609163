import CloudEvents
import Foundation

extension FirestoreValue {
    /// The value in the Firestore REST API's JSON (`{"integerValue": "42"}`, `{"mapValue": {"fields": …}}`).
    public var restJSON: JSONValue {
        switch self {
        case .null: ["nullValue": .null]
        case .bool(let value): ["booleanValue": .bool(value)]
        case .integer(let value): ["integerValue": .string(String(value))]
        case .double(let value):
            ["doubleValue": value.isFinite ? .number(value) : .string(value.isNaN ? "NaN" : value > 0 ? "Infinity" : "-Infinity")]
        case .timestamp(let date): ["timestampValue": .string(RFC3339Timestamp.string(from: date))]
        case .string(let value): ["stringValue": .string(value)]
        case .bytes(let data): ["bytesValue": .string(data.base64EncodedString())]
        case .reference(let name): ["referenceValue": .string(name)]
        case .geoPoint(let point):
            ["geoPointValue": ["latitude": .number(point.latitude), "longitude": .number(point.longitude)]]
        case .array(let elements): ["arrayValue": ["values": .array(elements.map(\.restJSON))]]
        case .map(let fields): ["mapValue": ["fields": .object(fields.mapValues(\.restJSON))]]
        }
    }

    /// A value from the REST API's JSON; `nil` when it is not one.
    public init?(restJSON json: JSONValue) {
        guard let members = json.objectValue, members.count == 1, let (kind, value) = members.first else { return nil }
        switch kind {
        case "nullValue": self = .null
        case "booleanValue":
            guard case .bool(let flag) = value else { return nil }
            self = .bool(flag)
        case "integerValue":
            guard let integer = value.stringValue.flatMap(Int64.init) ?? value.numberValue.flatMap(Int64.init(exactly:))
            else { return nil }
            self = .integer(integer)
        case "doubleValue":
            if let number = value.numberValue {
                self = .double(number)
            } else if let text = value.stringValue, let number = Double(text) {
                self = .double(number)
            } else {
                return nil
            }
        case "timestampValue":
            guard let date = value.stringValue.flatMap(RFC3339Timestamp.date(from:)) else { return nil }
            self = .timestamp(date)
        case "stringValue":
            guard let text = value.stringValue else { return nil }
            self = .string(text)
        case "bytesValue":
            guard let data = value.stringValue.flatMap({ Data(base64Encoded: $0) }) else { return nil }
            self = .bytes(data)
        case "referenceValue":
            guard let name = value.stringValue else { return nil }
            self = .reference(name)
        case "geoPointValue":
            guard let latitude = value["latitude"]?.numberValue, let longitude = value["longitude"]?.numberValue
            else { return nil }
            self = .geoPoint(FirestoreGeoPoint(latitude: latitude, longitude: longitude))
        case "arrayValue":
            var elements: [FirestoreValue] = []
            for element in value["values"]?.arrayValue ?? [] {
                guard let item = FirestoreValue(restJSON: element) else { return nil }
                elements.append(item)
            }
            self = .array(elements)
        case "mapValue":
            guard let fields = FirestoreValue.fields(restJSON: value["fields"] ?? [:]) else { return nil }
            self = .map(fields)
        default: return nil
        }
    }

    /// Fields from the REST API's JSON (`{"name": {"stringValue": …}}`); `nil` when one is not a value.
    public static func fields(restJSON json: JSONValue) -> [String: FirestoreValue]? {
        guard let members = json.objectValue else { return nil }
        var fields: [String: FirestoreValue] = [:]
        for (name, value) in members {
            guard let field = FirestoreValue(restJSON: value) else { return nil }
            fields[name] = field
        }
        return fields
    }
}

extension DocumentSnapshot {
    /// A document from the REST API's JSON (`{"name", "fields", "createTime", "updateTime"}`),
    /// at `path` in its database.
    public init?(restJSON json: JSONValue, path: String) {
        guard let fields = FirestoreValue.fields(restJSON: json["fields"] ?? [:]) else { return nil }
        self.init(
            path: path, fields: fields,
            createTime: json["createTime"]?.stringValue.flatMap(RFC3339Timestamp.date(from:)),
            updateTime: json["updateTime"]?.stringValue.flatMap(RFC3339Timestamp.date(from:)))
    }
}
