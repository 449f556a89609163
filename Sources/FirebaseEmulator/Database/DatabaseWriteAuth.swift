import CloudFunctions
import Foundation

/// Who made a Realtime Database write, as database triggers report it (`authtype`/`authid`).
public enum DatabaseWriteAuth: Sendable, Hashable {
    /// An administrator (`Authorization: Bearer owner`, the Admin SDKs, a function's admin client).
    case admin
    /// A signed-in end user.
    case user(uid: String)
    /// A client request without credentials.
    case unauthenticated

    /// The `authtype` extension of the events: `admin`, `app_user` or `unauthenticated`.
    public var authType: String {
        switch self {
        case .admin: "admin"
        case .user: "app_user"
        case .unauthenticated: "unauthenticated"
        }
    }

    /// The `authid` extension of the events: the user's uid, `nil` otherwise.
    public var authID: String? {
        if case .user(let uid) = self { return uid }
        return nil
    }
}
