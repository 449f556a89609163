import CloudFunctions
import Foundation
import GRDB

extension AuthService {
    /// The administrator `accounts:lookup`: every user matching any identifier, each once, in request order
    /// (uids, then emails, phone numbers, federated ids). Identifiers that match nobody are skipped; the
    /// response body omits `users` when the result is empty.
    public func lookup(_ request: AuthLookupRequest) throws -> [AuthUser] {
        try read { db in
            var seen: Set<String> = []
            var users: [AuthUser] = []
            func add(_ user: AuthUser?) {
                if let user, seen.insert(user.localId).inserted { users.append(user) }
            }
            for uid in request.localId ?? [] { add(try AuthUserStorage.user(db, project: project, uid: uid)) }
            for email in request.email ?? [] {
                add(try AuthUserStorage.user(db, project: project, email: email.lowercased()))
            }
            for phone in request.phoneNumber ?? [] {
                add(try AuthUserStorage.user(db, project: project, phoneNumber: phone))
            }
            for identity in request.federatedUserId ?? [] {
                guard let providerId = identity.providerId, let rawId = identity.rawId else { continue }
                add(try AuthUserStorage.user(db, project: project, providerId: providerId, rawId: rawId))
            }
            return users
        }
    }

    /// The client `accounts:lookup`: the user an ID token belongs to.
    ///
    /// - Throws: as ``verifyIDToken(_:)``.
    public func lookup(idToken: String?) throws -> AuthUser {
        try verifyIDToken(idToken)
    }

    /// The user with a uid (`get_user`).
    ///
    /// - Throws: `USER_NOT_FOUND`.
    public func user(uid: String) throws -> AuthUser {
        try found(lookup(AuthLookupRequest(localId: [uid])))
    }

    /// The user with an email address, matched case-insensitively (`get_user_by_email`).
    ///
    /// - Throws: `USER_NOT_FOUND`.
    public func user(email: String) throws -> AuthUser {
        try found(lookup(AuthLookupRequest(email: [email])))
    }

    /// The user with a phone number (`get_user_by_phone_number`).
    ///
    /// - Throws: `USER_NOT_FOUND`.
    public func user(phoneNumber: String) throws -> AuthUser {
        try found(lookup(AuthLookupRequest(phoneNumber: [phoneNumber])))
    }

    /// The `accounts:lookup` response body: `{kind, users?: [UserInfo]}`, without `users` when empty.
    public static func lookupResponse(_ users: [AuthUser]) -> JSONValue {
        var body: [String: JSONValue] = ["kind": "identitytoolkit#GetAccountInfoResponse"]
        if !users.isEmpty { body["users"] = .array(users.map { $0.userInfoJSON() }) }
        return .object(body)
    }

    private func found(_ users: [AuthUser]) throws -> AuthUser {
        guard let user = users.first else { throw ServiceError(.invalidArgument, "USER_NOT_FOUND") }
        return user
    }
}
