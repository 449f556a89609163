import Foundation
import CloudFunctions

/// A user `accounts:batchCreate` accepted, with its position in the request.
package struct AuthImportedUser: Sendable, Hashable {
    /// The user's position in the request's `users` array.
    public var index: Int
    /// The user to store.
    public var user: AuthUser

    /// Creates an entry.
    public init(index: Int, user: AuthUser) {
        self.index = index
        self.user = user
    }
}
