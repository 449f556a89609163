import CloudFunctions
import Foundation

/// The `context.auth` of functions running in process against the emulator.
package struct EmulatorAuthClient: AuthClient {
    let service: AuthService

    /// Creates a client managing the users of `service`.
    public init(service: AuthService) {
        self.service = service
    }

    public func getUser(_ uid: String) async throws -> UserRecord {
        try service.user(uid: uid).cloudUserRecord
    }

    public func getUserByEmail(_ email: String) async throws -> UserRecord {
        try service.user(email: email).cloudUserRecord
    }

    public func createUser(_ properties: UserProperties) async throws -> UserRecord {
        let request = AuthSignUpRequest(
            email: properties.email,
            password: properties.password,
            displayName: properties.displayName,
            photoUrl: properties.photoURL,
            phoneNumber: properties.phoneNumber,
            emailVerified: properties.emailVerified,
            disabled: properties.disabled,
            localId: properties.uid
        )
        let created = try await service.signUp(request, privileged: true)
        return try service.user(uid: created.localId).cloudUserRecord
    }

    public func updateUser(_ uid: String, _ properties: UserProperties) async throws -> UserRecord {
        try await service.update(AuthUpdateRequest(
            localId: uid,
            email: properties.email,
            password: properties.password,
            displayName: properties.displayName,
            photoUrl: properties.photoURL,
            phoneNumber: properties.phoneNumber,
            emailVerified: properties.emailVerified,
            disableUser: properties.disabled
        )).cloudUserRecord
    }

    public func deleteUser(_ uid: String) async throws {
        _ = try await service.delete(uid: uid)
    }

    public func setCustomUserClaims(_ uid: String, _ claims: [String: JSONValue]?) async throws {
        let text = JSONValue.object(claims ?? [:]).serialized()
        _ = try await service.update(AuthUpdateRequest(localId: uid, customAttributes: text))
    }
}
