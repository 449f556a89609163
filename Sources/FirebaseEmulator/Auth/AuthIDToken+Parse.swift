import Foundation
import CloudFunctions

extension AuthIDToken {
    /// Decodes and checks an ID token.
    ///
    /// - Parameters:
    ///   - token: the JWT text (three dot-separated base64url segments; the signature is not checked).
    ///   - projectId: when given, `aud` must equal it and `iss` must be its securetoken issuer.
    ///   - now: the time to check `exp` against.
    ///   - checksExpiry: `false` skips the `exp` check, as the official emulator does.
    /// - Throws: `INVALID_ID_TOKEN` when malformed, for another project, or without a usable `sub`;
    ///   `TOKEN_EXPIRED` when `now` is at or past `exp`.
    public init(parsing token: String, projectId: String?, now: Date, checksExpiry: Bool = true) throws {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
            let headerData = AuthBase64.decode(String(segments[0])),
            let header = (try? JSONValue(parsing: headerData))?.objectValue,
            let payloadData = AuthBase64.decode(String(segments[1])),
            let claims = (try? JSONValue(parsing: payloadData))?.objectValue
        else { throw Self.invalid }
        guard let uid = claims["sub"]?.stringValue, AuthUserValidation.isValidLocalId(uid),
            let audience = claims["aud"]?.stringValue,
            let issued = Self.seconds(claims["iat"]), let expires = Self.seconds(claims["exp"])
        else { throw Self.invalid }
        if let projectId {
            guard audience == projectId, claims["iss"]?.stringValue == Self.issuer(projectId: projectId) else {
                throw Self.invalid
            }
        }
        if checksExpiry, AuthTimestamp.seconds(now) >= expires {
            throw ServiceError(.invalidArgument, "TOKEN_EXPIRED")
        }
        self.claims = claims
        self.uid = uid
        self.audience = audience
        self.issuedAt = AuthTimestamp.date(seconds: issued)
        self.expiresAt = AuthTimestamp.date(seconds: expires)
        self.isSigned = header["alg"]?.stringValue != "none" || !segments[2].isEmpty
    }

    /// Checks the token against the stored user, in the emulator's order.
    ///
    /// - Throws: `USER_NOT_FOUND` when `user` is `nil`, `TOKEN_EXPIRED` when issued before the user's
    ///   `validSince`, `USER_DISABLED` when the account is disabled.
    public func validate(for user: AuthUser?) throws {
        guard let user else { throw ServiceError(.invalidArgument, "USER_NOT_FOUND") }
        guard AuthTimestamp.seconds(issuedAt) >= AuthTimestamp.seconds(user.validSince) else {
            throw ServiceError(.invalidArgument, "TOKEN_EXPIRED")
        }
        guard !user.disabled else { throw ServiceError(.invalidArgument, "USER_DISABLED") }
    }

    private static var invalid: ServiceError { ServiceError(.invalidArgument, "INVALID_ID_TOKEN") }

    private static func seconds(_ value: JSONValue?) -> Int64? {
        guard let number = value?.numberValue, number.isFinite,
            abs(number) <= Double(AuthTimestamp.maximumMilliseconds / 1000)
        else { return nil }
        return Int64(number.rounded(.down))
    }
}
