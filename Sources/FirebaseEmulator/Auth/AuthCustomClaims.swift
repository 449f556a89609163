import Foundation
import CloudFunctions

/// The rules for custom claims: a JSON object whose text is at most 1000 characters, with no reserved
/// top-level names.
package enum AuthCustomClaims {
    /// Which request the claims arrive in; the emulator words its errors differently for each.
    public enum Context: Sendable, Hashable {
        /// `accounts:update` (`set_custom_user_claims`): `INVALID_CLAIMS`, `CLAIMS_TOO_LARGE`,
        /// `FORBIDDEN_CLAIM : <name>`.
        case update
        /// `accounts:batchCreate`: the per-user sentences `Invalid custom claims provided.` etc.
        case `import`
    }

    /// The longest accepted serialized claims, in UTF-16 code units.
    public static let maximumLength = 1000

    /// The top-level names custom claims may not use.
    public static let reservedNames = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time",
        "firebase", "at_hash", "c_hash",
    ]

    /// Parses and checks claims given as JSON text (`customAttributes`); empty text means no claims.
    ///
    /// Checks run in the emulator's order: length, JSON syntax, object type, reserved names.
    /// - Returns: the claims object (empty for `""` and `"{}"`).
    /// - Throws: `ServiceError.invalidArgument` with the message for `context`.
    public static func parse(_ text: String, context: Context) throws -> [String: JSONValue] {
        guard !text.isEmpty else { return [:] }
        guard text.utf16.count <= maximumLength else { throw error(.tooLarge, context: context) }
        guard let value = try? JSONValue(parsing: text) else { throw error(.invalid, context: context) }
        return try validate(value, context: context, checkLength: false)
    }

    /// Checks claims given as a JSON value.
    ///
    /// - Returns: the claims object.
    /// - Throws: `ServiceError.invalidArgument` with the message for `context`.
    public static func validate(_ value: JSONValue, context: Context) throws -> [String: JSONValue] {
        try validate(value, context: context, checkLength: true)
    }

    private static func validate(_ value: JSONValue, context: Context, checkLength: Bool) throws
        -> [String: JSONValue]
    {
        if checkLength, value.serialized().utf16.count > maximumLength { throw error(.tooLarge, context: context) }
        guard let claims = value.objectValue else { throw error(.invalid, context: context) }
        if let reserved = reservedNames.first(where: { claims[$0] != nil }) {
            throw error(.reserved(reserved), context: context)
        }
        return claims
    }

    private enum Problem {
        case invalid, tooLarge, reserved(String)
    }

    private static func error(_ problem: Problem, context: Context) -> ServiceError {
        switch (problem, context) {
        case (.invalid, .update): ServiceError(.invalidArgument, "INVALID_CLAIMS")
        case (.tooLarge, .update): ServiceError(.invalidArgument, "CLAIMS_TOO_LARGE")
        case (.reserved(let name), .update): ServiceError(.invalidArgument, "FORBIDDEN_CLAIM : \(name)")
        case (.invalid, .import): ServiceError(.invalidArgument, "Invalid custom claims provided.")
        case (.tooLarge, .import): ServiceError(.invalidArgument, "Custom claims provided are too large.")
        case (.reserved, .import): ServiceError(.invalidArgument, "Custom claims provided include a reserved claim.")
        }
    }
}
