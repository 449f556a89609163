import Foundation
import CloudFunctions

extension AuthUser {
    /// The Identity Toolkit `UserInfo` wire form, as `accounts:lookup` and `accounts:batchGet` return it.
    ///
    /// Timestamps `createdAt`/`lastLoginAt` are epoch milliseconds as strings, `validSince` epoch seconds as a
    /// string, `customAttributes` the claims as a JSON string (absent when there are none), `passwordHash` the
    /// standard base64 of the bcrypt string (the salt is inside it, so no `salt` is written).
    ///
    /// - Parameter includePasswordHash: whether to write `passwordHash` (the emulator does; production redacts).
    public func userInfo(includePasswordHash: Bool = true) -> JSONValue {
        var members: [String: JSONValue] = [
            "localId": .string(localId),
            "emailVerified": .bool(emailVerified),
            "disabled": .bool(disabled),
            "createdAt": .string(String(AuthTimestamp.milliseconds(createdAt))),
            "validSince": .string(String(AuthTimestamp.seconds(validSince))),
            "providerUserInfo": .array(effectiveProviderData.map(\.userInfo)),
        ]
        members["email"] = email.map(JSONValue.string)
        members["displayName"] = displayName.map(JSONValue.string)
        members["photoUrl"] = photoURL.map(JSONValue.string)
        members["phoneNumber"] = phoneNumber.map(JSONValue.string)
        members["lastLoginAt"] = lastLoginAt.map { .string(String(AuthTimestamp.milliseconds($0))) }
        members["lastRefreshAt"] = lastRefreshAt.map { .string(AuthTimestamp.rfc3339($0)) }
        if !customClaims.isEmpty {
            members["customAttributes"] = .string(JSONValue.object(customClaims).serialized(sortedKeys: true))
        }
        if includePasswordHash, let passwordHash {
            members["passwordHash"] = .string(Data(passwordHash.utf8).base64EncodedString())
            members["passwordUpdatedAt"] = passwordUpdatedAt.map { .number(Double(AuthTimestamp.milliseconds($0))) }
        }
        return .object(members)
    }
}
