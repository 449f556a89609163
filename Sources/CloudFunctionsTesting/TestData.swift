import CloudFunctions
import Foundation

extension TemplateVersion {
    /// A template version like the ones firebase-functions-test builds, for handler tests.
    public static func example(
        versionNumber: Int64 = 2,
        updateType: UpdateType = .incrementalUpdate,
        rollbackSource: Int64? = nil,
        updateTime: Date = Date(timeIntervalSince1970: 1_700_000_000)
    ) -> TemplateVersion {
        TemplateVersion(
            versionNumber: versionNumber,
            updateTime: updateTime,
            updateUser: RemoteConfigUser(name: "testuser", email: "test@example.com", imageUrl: "test.com/img-url"),
            description: "config update test",
            updateOrigin: .restAPI,
            updateType: updateType,
            rollbackSource: rollbackSource
        )
    }
}

extension UserRecord {
    /// An example user, like firebase-functions-test's `exampleUserRecord()`.
    public static func example(
        uid: String = "SQol8dFfyMapsQtRD4JgZdC5r1G2",
        email: String = "user@gmail.com",
        displayName: String? = "Example User"
    ) -> UserRecord {
        UserRecord(
            uid: uid,
            email: email,
            displayName: displayName,
            metadata: UserMetadata(creationTime: Date(timeIntervalSince1970: 1_700_000_000)),
            providerData: [UserProviderInfo(uid: email, providerId: "password", email: email)]
        )
    }
}

extension Change where T == DataSnapshot {
    /// A change between two values at a path, like firebase-functions-test's `makeChange`.
    public static func make(before: JSONValue, after: JSONValue, path: String) -> Change<DataSnapshot> {
        Change(before: DataSnapshot(before, path: path), after: DataSnapshot(after, path: path))
    }
}
