import Foundation
import CloudFunctions

/// An opaque Auth emulator refresh token.
///
/// Clients see a base64url string; it carries the user, project, sign-in provider, issue time and a random
/// nonce, so the emulator needs no table of refresh tokens and revocation works through `validSince`.
package struct AuthRefreshToken: Sendable, Hashable {
    /// The marker member that tells emulator refresh tokens apart.
    static let marker = "_AuthEmulatorRefreshToken"

    /// The user the token refreshes.
    public var localId: String
    /// The project the token belongs to.
    public var projectId: String
    /// The provider of the original sign-in (kept as `firebase.sign_in_provider` on refresh).
    public var signInProvider: String
    /// The tenant, for multi-tenant projects.
    public var tenantId: String?
    /// When the token was issued (whole seconds).
    public var issuedAt: Date
    /// Random text that makes every token distinct.
    public var nonce: String
    /// Claims of this session only (a blocking function's session claims, a custom token's
    /// developer claims), kept in the ID tokens the refresh issues.
    public var sessionClaims: [String: JSONValue]

    /// Creates a token with a fresh 20-character nonce.
    public init(
        localId: String,
        projectId: String,
        signInProvider: String,
        tenantId: String? = nil,
        issuedAt: Date,
        sessionClaims: [String: JSONValue] = [:],
        using generator: inout some RandomNumberGenerator
    ) {
        self.sessionClaims = sessionClaims
        self.localId = localId
        self.projectId = projectId
        self.signInProvider = signInProvider
        self.tenantId = tenantId
        self.issuedAt = AuthTimestamp.date(seconds: AuthTimestamp.seconds(issuedAt))
        self.nonce = String(AuthUser.generateLocalId(using: &generator).prefix(20))
    }

    /// The token text handed to clients.
    public var encoded: String {
        var members: [String: JSONValue] = [
            Self.marker: "DO NOT MODIFY", "localId": .string(localId), "projectId": .string(projectId),
            "provider": .string(signInProvider), "iat": .number(Double(AuthTimestamp.seconds(issuedAt))),
            "nonce": .string(nonce),
        ]
        members["tenantId"] = tenantId.map(JSONValue.string)
        if !sessionClaims.isEmpty { members["claims"] = .object(sessionClaims) }
        return AuthBase64.urlEncoded(JSONValue.object(members).serializedData(sortedKeys: true))
    }

    /// Reads a token back.
    ///
    /// - Throws: `INVALID_REFRESH_TOKEN` when the text is not an emulator refresh token.
    public init(parsing text: String) throws {
        guard let data = AuthBase64.decode(text), let members = (try? JSONValue(parsing: data))?.objectValue,
            members[Self.marker] != nil,
            let localId = members["localId"]?.stringValue, !localId.isEmpty,
            let projectId = members["projectId"]?.stringValue,
            let provider = members["provider"]?.stringValue,
            let issued = members["iat"]?.numberValue, issued.isFinite,
            abs(issued) <= Double(AuthTimestamp.maximumMilliseconds / 1000)
        else { throw ServiceError(.invalidArgument, "INVALID_REFRESH_TOKEN") }
        self.localId = localId
        self.projectId = projectId
        self.signInProvider = provider
        self.tenantId = members["tenantId"]?.stringValue
        self.issuedAt = AuthTimestamp.date(seconds: Int64(issued.rounded(.down)))
        self.nonce = members["nonce"]?.stringValue ?? ""
        self.sessionClaims = members["claims"]?.objectValue ?? [:]
    }

    /// Checks the token against the project and the stored user.
    ///
    /// - Throws: `INVALID_REFRESH_TOKEN` for another project, `USER_NOT_FOUND` when `user` is `nil`,
    ///   `TOKEN_EXPIRED` when issued before the user's `validSince`, `USER_DISABLED` when disabled.
    public func validate(projectId: String, user: AuthUser?) throws {
        guard projectId == self.projectId else { throw ServiceError(.invalidArgument, "INVALID_REFRESH_TOKEN") }
        guard let user else { throw ServiceError(.invalidArgument, "USER_NOT_FOUND") }
        guard AuthTimestamp.seconds(issuedAt) >= AuthTimestamp.seconds(user.validSince) else {
            throw ServiceError(.invalidArgument, "TOKEN_EXPIRED")
        }
        guard !user.disabled else { throw ServiceError(.invalidArgument, "USER_DISABLED") }
    }
}
