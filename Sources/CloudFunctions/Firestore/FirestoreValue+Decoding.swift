import CloudEvents
import Foundation

extension FirestoreValue: CustomStringConvertible {
    /// The value decoded as `T` (see ``DocumentSnapshot/data(as:)``).
    ///
    /// It goes through JSON with integers written out in full, so `Int64` values keep every digit.
    public func decode<T: Decodable>(as type: T.Type) throws -> T {
        var text = ""
        writeJSON(to: &text)
        return try Self.decoder.decode(T.self, from: Data(text.utf8))
    }

    /// The value in JSON, as ``decode(as:)`` reads it: timestamps as RFC 3339 text, bytes as
    /// base64, references as their names, geo points as `{latitude, longitude}`.
    public var description: String {
        var text = ""
        writeJSON(to: &text)
        return text
    }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339Timestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a timestamp")
            }
            return date
        }
        decoder.dataDecodingStrategy = .base64
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }()

    private func writeJSON(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .integer(let value): text += String(value)
        case .double(let value):
            if value.isNaN {
                text += "\"NaN\""
            } else if value.isInfinite {
                text += value > 0 ? "\"Infinity\"" : "\"-Infinity\""
            } else {
                text += "\(value)"
            }
        case .timestamp(let date): Self.writeString(RFC3339Timestamp.string(from: date), to: &text)
        case .string(let value), .reference(let value): Self.writeString(value, to: &text)
        case .bytes(let data): Self.writeString(data.base64EncodedString(), to: &text)
        case .geoPoint(let point): text += "{\"latitude\":\(point.latitude),\"longitude\":\(point.longitude)}"
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.writeJSON(to: &text)
            }
            text += "]"
        case .map(let fields):
            text += "{"
            for (index, (name, value)) in fields.enumerated() {
                if index > 0 { text += "," }
                Self.writeString(name, to: &text)
                text += ":"
                value.writeJSON(to: &text)
            }
            text += "}"
        }
    }

    private static func writeString(_ value: String, to text: inout String) {
        text += JSONValue.string(value).serialized()
    }
}
