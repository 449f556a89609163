import CloudEvents
import Foundation

/// A published Remote Config template version: what `RemoteConfig.onUpdate` handlers receive.
///
/// Decodes both wire generations: `versionNumber` and `rollbackSource` as numbers (Node SDK)
/// or proto3-JSON strings (CloudEvents); encodes them as strings, which every consumer reads.
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

    /// The version number of the template.
    public var versionNumber: Int64
    /// When the version was published.
    public var updateTime: Date?
    /// Who published it.
    public var updateUser: RemoteConfigUser?
    /// The description given at publish time.
    public var description: String?
    /// Where the update came from.
    public var updateOrigin: UpdateOrigin
    /// Publish, forced publish or rollback.
    public var updateType: UpdateType
    /// For a rollback, the version rolled back to.
    public var rollbackSource: Int64?

    /// Creates a version.
    public init(
        versionNumber: Int64,
        updateTime: Date? = nil,
        updateUser: RemoteConfigUser? = nil,
        description: String? = nil,
        updateOrigin: UpdateOrigin = .unspecified,
        updateType: UpdateType = .unspecified,
        rollbackSource: Int64? = nil
    ) {
        self.versionNumber = versionNumber
        self.updateTime = updateTime
        self.updateUser = updateUser
        self.description = description
        self.updateOrigin = updateOrigin
        self.updateType = updateType
        self.rollbackSource = rollbackSource
    }

    enum CodingKeys: String, CodingKey {
        case versionNumber, updateTime, updateUser, description, updateOrigin, updateType, rollbackSource
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let number = try LenientCoding.int64(container, .versionNumber) else {
            throw DecodingError.keyNotFound(
                CodingKeys.versionNumber,
                .init(codingPath: container.codingPath, debugDescription: "versionNumber is required")
            )
        }
        versionNumber = number
        updateTime = try LenientCoding.date(container, .updateTime)
        updateUser = try container.decodeIfPresent(RemoteConfigUser.self, forKey: .updateUser)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        updateOrigin = try container.decodeIfPresent(UpdateOrigin.self, forKey: .updateOrigin) ?? .unspecified
        updateType = try container.decodeIfPresent(UpdateType.self, forKey: .updateType) ?? .unspecified
        rollbackSource = try LenientCoding.int64(container, .rollbackSource)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(String(versionNumber), forKey: .versionNumber)
        try container.encodeIfPresent(updateTime.map(RFC3339Timestamp.string(from:)), forKey: .updateTime)
        try container.encodeIfPresent(updateUser, forKey: .updateUser)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encode(updateOrigin, forKey: .updateOrigin)
        try container.encode(updateType, forKey: .updateType)
        try container.encodeIfPresent(rollbackSource.map(String.init), forKey: .rollbackSource)
    }
}
