import CloudEvents
import Foundation

/// Decoding helpers for fields that the real producers spell or type differently.
enum LenientCoding {
    /// An int64 sent as a JSON number or as a proto3-JSON string.
    static func int64<Key: CodingKey>(
        _ container: KeyedDecodingContainer<Key>,
        _ key: Key
    ) throws -> Int64? {
        // The proto3 string first: it is what Firebase sends, and read this way it costs one
        // lookup (absent and null give nil; a number is a type mismatch).
        let text: String
        do {
            guard let string = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            text = string
        } catch DecodingError.typeMismatch {
            if let number = try? container.decode(Int64.self, forKey: key) { return number }
            let double = try container.decode(Double.self, forKey: key)
            guard double.rounded() == double, abs(double) < 9.2e18 else {
                throw DecodingError.dataCorruptedError(
                    forKey: key,
                    in: container,
                    debugDescription: "\(double) is not an integer"
                )
            }
            return Int64(double)
        }
        guard let number = Int64(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: container,
                debugDescription: "'\(text)' is not an integer"
            )
        }
        return number
    }

    /// A timestamp sent as RFC 3339 text or as milliseconds since the epoch (number or string).
    static func date<Key: CodingKey>(
        _ container: KeyedDecodingContainer<Key>,
        _ key: Key
    ) throws -> Date? {
        let text: String
        do {
            guard let string = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            text = string
        } catch DecodingError.typeMismatch {
            return Date(timeIntervalSince1970: try container.decode(Double.self, forKey: key) / 1000)
        }
        if let date = RFC3339Timestamp.date(from: text) { return date }
        if let millis = Double(text) { return Date(timeIntervalSince1970: millis / 1000) }
        // Some producers write RFC 1123 dates ("Tue, 26 May 2020 10:42:27 GMT").
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        if let date = formatter.date(from: text) { return date }
        throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "'\(text)' is not a date")
    }

    /// The first of several spellings of a key that is present.
    static func firstKey<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ keys: Key...) -> Key? {
        keys.first { container.contains($0) }
    }
}

/// A coding key built from any string, for payloads with several spellings of one field.
struct AnyCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where Key == AnyCodingKey {
    /// The first present, non-null string among several spellings of a field.
    func string(_ keys: String...) throws -> String? {
        for key in keys.map(AnyCodingKey.init) where contains(key) {
            if let value = try decodeIfPresent(String.self, forKey: key) { return value }
        }
        return nil
    }

    /// The first present, non-null Boolean among several spellings of a field; `false` if none.
    func bool(_ keys: String...) throws -> Bool {
        for key in keys.map(AnyCodingKey.init) where contains(key) {
            if let value = try decodeIfPresent(Bool.self, forKey: key) { return value }
        }
        return false
    }
}
