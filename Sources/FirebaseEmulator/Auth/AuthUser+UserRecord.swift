import Foundation
import CloudFunctions

extension AuthUser {
    /// The firebase-functions `UserRecord` JSON the Auth emulator sends with `user.create`/`user.delete` events.
    ///
    /// `{uid, email?, emailVerified, displayName?, photoURL?, phoneNumber?, disabled,
    /// metadata: {creationTime, lastSignInTime?}, providerData: [{uid, providerId, email?, ...}], customClaims}`,
    /// times in RFC 3339 with milliseconds. Like the emulator it leaves out the password hash and `validSince`.
    public var userRecord: JSONValue {
        var metadata: [String: JSONValue] = ["creationTime": .string(AuthTimestamp.rfc3339(createdAt))]
        metadata["lastSignInTime"] = lastLoginAt.map { .string(AuthTimestamp.rfc3339($0)) }
        var members: [String: JSONValue] = [
            "uid": .string(localId),
            "emailVerified": .bool(emailVerified),
            "disabled": .bool(disabled),
            "metadata": .object(metadata),
            "providerData": .array(effectiveProviderData.map(\.userRecordInfo)),
            "customClaims": .object(customClaims),
        ]
        members["email"] = email.map(JSONValue.string)
        members["displayName"] = displayName.map(JSONValue.string)
        members["photoURL"] = photoURL.map(JSONValue.string)
        members["phoneNumber"] = phoneNumber.map(JSONValue.string)
        return .object(members)
    }
}
