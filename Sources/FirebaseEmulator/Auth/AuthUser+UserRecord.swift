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

extension AuthUser {
    /// The user as the `CloudFunctions.UserRecord` that `user.v1.created`/`deleted` events carry: the same fields
    /// as ``userRecord`` (no password hash, salt or `validSince`), with the derived `password`/`phone` providers.
    public var cloudUserRecord: UserRecord {
        UserRecord(
            uid: localId,
            email: email,
            emailVerified: emailVerified,
            displayName: displayName,
            photoURL: photoURL,
            phoneNumber: phoneNumber,
            disabled: disabled,
            metadata: UserMetadata(creationTime: createdAt, lastSignInTime: lastLoginAt),
            providerData: effectiveProviderData.map {
                UserProviderInfo(
                    uid: $0.rawId, providerId: $0.providerId, email: $0.email, displayName: $0.displayName,
                    photoURL: $0.photoURL, phoneNumber: $0.phoneNumber
                )
            },
            customClaims: customClaims
        )
    }
}
