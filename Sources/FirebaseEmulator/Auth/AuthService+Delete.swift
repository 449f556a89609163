import CloudFunctions
import Foundation

/// One user `accounts:batchDelete` did not delete: `{index, localId, message}`.
package struct AuthBatchDeleteFailure: Sendable, Hashable, Codable {
    /// The position in the request's `localIds`.
    public var index: Int
    /// The uid.
    public var localId: String
    /// Why, e.g. `NOT_DISABLED : Disable the account before batch deletion.`.
    public var message: String

    /// Creates a failure.
    public init(index: Int, localId: String, message: String) {
        self.index = index
        self.localId = localId
        self.message = message
    }

    /// The message for an enabled account deleted without `force`.
    public static let notDisabled = "NOT_DISABLED : Disable the account before batch deletion."
}

extension AuthService {
    /// The most uids one `accounts:batchDelete` may name.
    public static let maximumBatchDelete = 1000

    /// Deletes a user (administrator `accounts:delete`); emits `user.deleted` with the user as it was.
    ///
    /// - Returns: the deleted user.
    /// - Throws: `MISSING_LOCAL_ID`, `USER_NOT_FOUND`.
    @discardableResult
    public func delete(uid: String?) async throws -> AuthUser {
        guard let uid, !uid.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_LOCAL_ID") }
        return try await write { [self] transaction in
            guard let user = try AuthUserStorage.user(transaction.db, project: project, uid: uid) else {
                throw ServiceError(.invalidArgument, "USER_NOT_FOUND")
            }
            try AuthUserStorage.delete(transaction.db, project: project, uid: uid)
            try emitUserEvent(FirebaseEventType.authUserDeleted, user, in: &transaction)
            return user
        }
    }

    /// Deletes the user an ID token belongs to (client `accounts:delete`).
    ///
    /// - Throws: as ``verifyIDToken(_:)``.
    @discardableResult
    public func delete(idToken: String?) async throws -> AuthUser {
        try await delete(uid: verifyIDToken(idToken).localId)
    }

    /// Deletes many users at once (`accounts:batchDelete`); unknown uids are skipped silently, enabled accounts
    /// are kept unless `force`. Emits one `user.deleted` per deleted user, all in one transaction.
    ///
    /// - Returns: the users that were not deleted (the response's `errors`).
    /// - Throws: `LOCAL_ID_LIST_EXCEEDS_LIMIT` for no uids or more than 1000.
    package func batchDelete(localIds: [String], force: Bool) async throws -> [AuthBatchDeleteFailure] {
        guard !localIds.isEmpty, localIds.count <= Self.maximumBatchDelete else {
            throw ServiceError(.invalidArgument, "LOCAL_ID_LIST_EXCEEDS_LIMIT")
        }
        return try await write { [self] transaction in
            var failures: [AuthBatchDeleteFailure] = []
            for (index, uid) in localIds.enumerated() {
                guard let user = try AuthUserStorage.user(transaction.db, project: project, uid: uid) else { continue }
                guard user.disabled || force else {
                    failures.append(
                        AuthBatchDeleteFailure(index: index, localId: uid, message: AuthBatchDeleteFailure.notDisabled)
                    )
                    continue
                }
                try AuthUserStorage.delete(transaction.db, project: project, uid: uid)
                try emitUserEvent(FirebaseEventType.authUserDeleted, user, in: &transaction)
            }
            return failures
        }
    }

    /// Removes every user of the project (`DELETE /emulator/v1/projects/{p}/accounts`); like the emulator's
    /// reset, it emits no events.
    public func deleteAllUsers() async throws {
        try await write { [self] transaction in try AuthUserStorage.deleteAll(transaction.db, project: project) }
    }
}
