import CloudEvents
import Foundation

/// When a user was created and last signed in.
///
/// Reads `createdAt`/`creationTime`/`createTime` and `lastSignedInAt`/`lastSignInTime` (and the
/// snake_case names blocking calls use: `creation_time`, `last_sign_in_time`), as RFC 3339 text
/// or epoch milliseconds. Writes `creationTime` and `lastSignInTime` (what the
/// Node SDK and the Auth emulator use) and also `createTime` (the CloudEvents proto name).
public struct UserMetadata: Sendable, Hashable, Codable {
    /// When the user was created.
    public var creationTime: Date?
    /// When the user last signed in.
    public var lastSignInTime: Date?

    /// Creates metadata.
    public init(creationTime: Date? = nil, lastSignInTime: Date? = nil) {
        self.creationTime = creationTime
        self.lastSignInTime = lastSignInTime
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        let created = LenientCoding.firstKey(
            c,
            AnyCodingKey("creationTime"),
            AnyCodingKey("createdAt"),
            AnyCodingKey("createTime"),
            AnyCodingKey("create_time"),
            AnyCodingKey("creation_time")
        )
        let lastSignIn = LenientCoding.firstKey(
            c,
            AnyCodingKey("lastSignInTime"),
            AnyCodingKey("lastSignedInAt"),
            AnyCodingKey("last_sign_in_time")
        )
        creationTime = try created.flatMap { try LenientCoding.date(c, $0) }
        lastSignInTime = try lastSignIn.flatMap { try LenientCoding.date(c, $0) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        let created = creationTime.map(RFC3339Timestamp.string(from:))
        try c.encodeIfPresent(created, forKey: AnyCodingKey("creationTime"))
        try c.encodeIfPresent(created, forKey: AnyCodingKey("createTime"))
        try c.encodeIfPresent(
            lastSignInTime.map(RFC3339Timestamp.string(from:)), forKey: AnyCodingKey("lastSignInTime"))
    }
}
