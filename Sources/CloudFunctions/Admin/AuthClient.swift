/// Manages Firebase Authentication users, like the Admin SDK's `auth()`.
public protocol AuthClient: Sendable {
    /// The user with this uid.
    func getUser(_ uid: String) async throws -> UserRecord
    /// The user with this email address.
    func getUserByEmail(_ email: String) async throws -> UserRecord
    /// Creates a user; fires `Auth.user().onCreate` functions.
    func createUser(_ properties: UserProperties) async throws -> UserRecord
    /// Changes a user's properties.
    func updateUser(_ uid: String, _ properties: UserProperties) async throws -> UserRecord
    /// Deletes a user; fires `Auth.user().onDelete` functions.
    func deleteUser(_ uid: String) async throws
    /// Replaces a user's custom claims; `nil` removes them.
    func setCustomUserClaims(_ uid: String, _ claims: [String: JSONValue]?) async throws
}

/// The properties of a user to create or change; `nil` leaves a property as it is.
public struct UserProperties: Sendable, Hashable {
    /// The uid to create the user with (create only).
    public var uid: String?
    /// The email address.
    public var email: String?
    /// Whether the email is verified.
    public var emailVerified: Bool?
    /// The password, stored only as a hash.
    public var password: String?
    /// The display name.
    public var displayName: String?
    /// The photo URL.
    public var photoURL: String?
    /// The phone number in E.164 form.
    public var phoneNumber: String?
    /// Whether the account is disabled.
    public var disabled: Bool?

    /// Creates properties.
    public init(
        uid: String? = nil,
        email: String? = nil,
        emailVerified: Bool? = nil,
        password: String? = nil,
        displayName: String? = nil,
        photoURL: String? = nil,
        phoneNumber: String? = nil,
        disabled: Bool? = nil
    ) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.password = password
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.disabled = disabled
    }
}

/// The auth client of a runtime without an Authentication backend: every call fails.
public struct UnavailableAuth: AuthClient {
    /// Creates the client.
    public init() {}

    public func getUser(_ uid: String) async throws -> UserRecord { throw AdminClientError(service: "auth") }
    public func getUserByEmail(_ email: String) async throws -> UserRecord { throw AdminClientError(service: "auth") }
    public func createUser(_ properties: UserProperties) async throws -> UserRecord {
        throw AdminClientError(service: "auth")
    }
    public func updateUser(_ uid: String, _ properties: UserProperties) async throws -> UserRecord {
        throw AdminClientError(service: "auth")
    }
    public func deleteUser(_ uid: String) async throws { throw AdminClientError(service: "auth") }
    public func setCustomUserClaims(_ uid: String, _ claims: [String: JSONValue]?) async throws {
        throw AdminClientError(service: "auth")
    }
}
