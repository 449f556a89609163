import Foundation
import CloudFunctions

/// The `version` object of a Remote Config template: who published it, when and how.
///
/// Everything but ``description`` is output only: the store fills it in on publish. All fields are
/// optional because publish requests and never-published templates carry none of them.
public struct RemoteConfigVersion: Sendable, Hashable {
    /// The version number, an int64 written as a JSON string (e.g. `"86"`).
    public var versionNumber: Int64?
    /// When the version was published.
    public var updateTime: Date?
    /// Who published the version.
    public var updateUser: RemoteConfigUser?
    /// Where the update came from, e.g. ``RemoteConfigUpdateOrigin/adminSDKNode``.
    public var updateOrigin: RemoteConfigUpdateOrigin?
    /// How the update was made, e.g. ``RemoteConfigUpdateType/incrementalUpdate``.
    public var updateType: RemoteConfigUpdateType?
    /// The publisher's description (≤1024 characters).
    public var description: String?
    /// For a rollback, the version number it restored, as a string (e.g. `"6"`).
    public var rollbackSource: String?
    /// Whether the version was stored by a legacy API.
    public var isLegacy: Bool?

    /// Creates a version; every field defaults to absent.
    public init(
        versionNumber: Int64? = nil,
        updateTime: Date? = nil,
        updateUser: RemoteConfigUser? = nil,
        updateOrigin: RemoteConfigUpdateOrigin? = nil,
        updateType: RemoteConfigUpdateType? = nil,
        description: String? = nil,
        rollbackSource: String? = nil,
        isLegacy: Bool? = nil
    ) {
        self.versionNumber = versionNumber
        self.updateTime = updateTime
        self.updateUser = updateUser
        self.updateOrigin = updateOrigin
        self.updateType = updateType
        self.description = description
        self.rollbackSource = rollbackSource
        self.isLegacy = isLegacy
    }

    /// The version keeping only what a publish request may set: the description.
    public var publishable: RemoteConfigVersion {
        RemoteConfigVersion(description: description)
    }
}

/// The `updateOrigin` of a template version (shared with the event payload type).
public typealias RemoteConfigUpdateOrigin = TemplateVersion.UpdateOrigin

/// The `updateType` of a template version (shared with the event payload type).
public typealias RemoteConfigUpdateType = TemplateVersion.UpdateType
