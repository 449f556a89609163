import CloudEvents
import Foundation

/// The version of a Remote Config template: what `RemoteConfig.onUpdate` handlers receive, and
/// the `version` object of a template in the REST API.
///
/// Decodes both wire generations: `versionNumber` and `rollbackSource` as numbers (Node SDK)
/// or proto3-JSON strings (CloudEvents, REST); encodes them as strings, which every consumer reads.
public struct TemplateVersion: Sendable, Hashable, Codable {
    /// Where an update came from.
    public struct UpdateOrigin: RawRepresentable, Sendable, Hashable, Codable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let unspecified = UpdateOrigin(rawValue: "REMOTE_CONFIG_UPDATE_ORIGIN_UNSPECIFIED")
        public static let console = UpdateOrigin(rawValue: "CONSOLE")
        public static let restAPI = UpdateOrigin(rawValue: "REST_API")
        public static let adminSDKNode = UpdateOrigin(rawValue: "ADMIN_SDK_NODE")
    }

    /// What kind of update made this version.
    public struct UpdateType: RawRepresentable, Sendable, Hashable, Codable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let unspecified = UpdateType(rawValue: "REMOTE_CONFIG_UPDATE_TYPE_UNSPECIFIED")
        /// Published with a matching ETag.
        public static let incrementalUpdate = UpdateType(rawValue: "INCREMENTAL_UPDATE")
        /// Published with `If-Match: *`.
        public static let forcedUpdate = UpdateType(rawValue: "FORCED_UPDATE")
        /// A rollback to an earlier version.
        public static let rollback = UpdateType(rawValue: "ROLLBACK")
    }

    /// The version number; 0 for a template never published and in publish requests.
    public var versionNumber: Int64
    /// When the version was published.
    public var updateTime: Date?
    /// Who published it.
    public var updateUser: RemoteConfigUser?
    /// The description given at publish time (at most 1024 characters), the one field a publish
    /// request sets; the rest is filled in by the backend.
    public var description: String?
    /// Where the update came from.
    public var updateOrigin: UpdateOrigin
    /// Publish, forced publish or rollback.
    public var updateType: UpdateType
    /// For a rollback, the version rolled back to.
    public var rollbackSource: Int64?
    /// Whether the version was stored by a legacy API.
    public var isLegacy: Bool?

    /// Creates a version.
    public init(
        versionNumber: Int64,
        updateTime: Date? = nil,
        updateUser: RemoteConfigUser? = nil,
        description: String? = nil,
        updateOrigin: UpdateOrigin = .unspecified,
        updateType: UpdateType = .unspecified,
        rollbackSource: Int64? = nil,
        isLegacy: Bool? = nil
    ) {
        self.versionNumber = versionNumber
        self.updateTime = updateTime
        self.updateUser = updateUser
        self.description = description
        self.updateOrigin = updateOrigin
        self.updateType = updateType
        self.rollbackSource = rollbackSource
        self.isLegacy = isLegacy
    }

    enum CodingKeys: String, CodingKey {
        case versionNumber, updateTime, updateUser, description, updateOrigin, updateType, rollbackSource, isLegacy
    }

    /// Decodes leniently: absent fields take their defaults, numbers may be strings, and
    /// `updateTime` may be RFC 3339 (any fraction) or epoch milliseconds.
    ///
    /// - Throws: `DecodingError` for a malformed number or time.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        versionNumber = try LenientCoding.int64(container, .versionNumber) ?? 0
        updateTime = try LenientCoding.date(container, .updateTime)
        updateUser = try container.decodeIfPresent(RemoteConfigUser.self, forKey: .updateUser)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        updateOrigin = try container.decodeIfPresent(UpdateOrigin.self, forKey: .updateOrigin) ?? .unspecified
        updateType = try container.decodeIfPresent(UpdateType.self, forKey: .updateType) ?? .unspecified
        rollbackSource = try LenientCoding.int64(container, .rollbackSource)
        isLegacy = try container.decodeIfPresent(Bool.self, forKey: .isLegacy)
    }

    /// Encodes what is set, as proto3 JSON: numbers as strings, `updateTime` in UTC with
    /// milliseconds, a zero version number and unspecified enums left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if versionNumber != 0 { try container.encode(String(versionNumber), forKey: .versionNumber) }
        try container.encodeIfPresent(updateTime.map(RFC3339Timestamp.millisecondString(from:)), forKey: .updateTime)
        try container.encodeIfPresent(updateUser, forKey: .updateUser)
        try container.encodeIfPresent(description, forKey: .description)
        if updateOrigin != .unspecified { try container.encode(updateOrigin, forKey: .updateOrigin) }
        if updateType != .unspecified { try container.encode(updateType, forKey: .updateType) }
        try container.encodeIfPresent(rollbackSource.map(String.init), forKey: .rollbackSource)
        try container.encodeIfPresent(isLegacy, forKey: .isLegacy)
    }
}
