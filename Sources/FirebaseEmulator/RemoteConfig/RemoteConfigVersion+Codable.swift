import Foundation
import CloudFunctions

extension RemoteConfigVersion: Codable {
    private enum CodingKeys: String, CodingKey {
        case versionNumber, updateTime, updateUser, updateOrigin, updateType, description, rollbackSource, isLegacy
    }

    /// Decodes leniently: every field may be missing; `versionNumber` and `rollbackSource` may be
    /// strings or numbers; `updateTime` is RFC 3339 with any fraction.
    ///
    /// - Throws: `DecodingError` for a malformed version number or timestamp.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        versionNumber = try Self.decodeInt64(container, .versionNumber)
        if let text = try container.decodeIfPresent(String.self, forKey: .updateTime) {
            guard let date = RemoteConfigTimestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .updateTime, in: container, debugDescription: "updateTime is not an RFC 3339 timestamp"
                )
            }
            updateTime = date
        }
        updateUser = try container.decodeIfPresent(RemoteConfigUser.self, forKey: .updateUser)
        updateOrigin = try container.decodeIfPresent(RemoteConfigUpdateOrigin.self, forKey: .updateOrigin)
        updateType = try container.decodeIfPresent(RemoteConfigUpdateType.self, forKey: .updateType)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        rollbackSource = try Self.decodeInt64(container, .rollbackSource).map { String($0) }
        isLegacy = try container.decodeIfPresent(Bool.self, forKey: .isLegacy)
    }

    /// Encodes the present fields; `versionNumber` as a string, `updateTime` with milliseconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(versionNumber.map { String($0) }, forKey: .versionNumber)
        try container.encodeIfPresent(updateTime.map(RemoteConfigTimestamp.format), forKey: .updateTime)
        try container.encodeIfPresent(updateUser, forKey: .updateUser)
        try container.encodeIfPresent(updateOrigin, forKey: .updateOrigin)
        try container.encodeIfPresent(updateType, forKey: .updateType)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(rollbackSource, forKey: .rollbackSource)
        try container.encodeIfPresent(isLegacy, forKey: .isLegacy)
    }

    /// Parses an int64 that the wire may write as a string (`"6"`) or a number (`6`).
    ///
    /// - Returns: the value, or `nil` when `text` is not a base-10 int64.
    public static func parseVersionNumber(_ value: JSONValue) -> Int64? {
        switch value {
        case .string(let text):
            return Int64(text)
        case .number(let number):
            guard number.rounded(.towardZero) == number, abs(number) <= 9_007_199_254_740_992 else { return nil }
            return Int64(number)
        default:
            return nil
        }
    }

    private static func decodeInt64(
        _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys
    ) throws -> Int64? {
        guard let raw = try container.decodeIfPresent(JSONValue.self, forKey: key), !raw.isNull else { return nil }
        guard let value = parseVersionNumber(raw) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "\(key.stringValue) is not an int64"
            )
        }
        return value
    }
}
