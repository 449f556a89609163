import CloudFunctions
import Foundation

/// One page of `accounts:batchGet`.
package struct AuthUserPage: Sendable, Hashable {
    /// The users, in uid order.
    public var users: [AuthUser]
    /// The token of the next page, `nil` on the last one.
    public var nextPageToken: String?

    /// The response body: `{kind, users, nextPageToken?}`.
    public var json: JSONValue {
        var body: [String: JSONValue] = [
            "kind": "identitytoolkit#DownloadAccountResponse", "users": .array(users.map { $0.userInfoJSON() }),
        ]
        body["nextPageToken"] = nextPageToken.map(JSONValue.string)
        return .object(body)
    }
}

extension AuthService {
    /// The default page size of ``listUsers(maxResults:pageToken:)``.
    public static let defaultPageSize = 20
    /// The largest page size.
    public static let maximumPageSize = 1000

    /// Lists users in uid order (`accounts:batchGet`), a page at a time.
    ///
    /// - Parameters:
    ///   - maxResults: 1 to 1000 (default 20); `-1` returns everything, as the emulator allows.
    ///   - pageToken: the `nextPageToken` of the previous page (opaque), or `nil` for the first page.
    /// - Throws: `INVALID_PAGE_SELECTION` for another size or a token this service did not make.
    package func listUsers(maxResults: Int? = nil, pageToken: String? = nil) throws -> AuthUserPage {
        let size = maxResults ?? Self.defaultPageSize
        guard size == -1 || (1...Self.maximumPageSize).contains(size) else {
            throw ServiceError(.invalidArgument, "INVALID_PAGE_SELECTION")
        }
        var after: String?
        if let pageToken, !pageToken.isEmpty {
            guard let data = AuthBase64.decode(pageToken), let uid = String(data: data, encoding: .utf8),
                uid.hasPrefix(Self.pageTokenPrefix)
            else { throw ServiceError(.invalidArgument, "INVALID_PAGE_SELECTION") }
            after = String(uid.dropFirst(Self.pageTokenPrefix.count))
        }
        let limit = size == -1 ? nil : size + 1
        var users = try read { db in try AuthUserStorage.users(db, project: project, after: after, limit: limit) }
        var next: String?
        if size != -1, users.count > size {
            users.removeLast(users.count - size)
            next = users.last.map { AuthBase64.urlEncoded(Data((Self.pageTokenPrefix + $0.localId).utf8)) }
        }
        return AuthUserPage(users: users, nextPageToken: next)
    }

    private static let pageTokenPrefix = "uid:"
}
