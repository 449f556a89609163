import Foundation
import CloudFunctions

extension AuthUserImport {
    /// Builds one user of a batch-create request, throwing the emulator's per-user sentence on bad input.
    ///
    /// Checks run in the emulator's order: `localId`, password, custom claims, providers, phone, email.
    static func user(
        from entry: JSONValue,
        now: Date,
        hasher: AuthPasswordHasher
    ) throws -> AuthUser {
        guard let localId = entry["localId"]?.stringValue, !localId.isEmpty else {
            throw ServiceError(.invalidArgument, AuthImportFailure.localIdMissing)
        }
        guard AuthUserValidation.isValidLocalId(localId) else {
            throw ServiceError(.invalidArgument, AuthImportFailure.localIdInvalid)
        }
        let uploadTime = AuthTimestamp.date(seconds: AuthTimestamp.seconds(now))
        var user = AuthUser(localId: localId, createdAt: now, validSince: uploadTime)
        if let wireHash = entry["passwordHash"], !(wireHash.stringValue?.isEmpty ?? false), !wireHash.isNull {
            user.passwordHash = try bcryptString(fromWire: wireHash)
            user.passwordUpdatedAt = now
        } else if let rawPassword = entry["rawPassword"]?.stringValue, !rawPassword.isEmpty {
            user.passwordHash = hasher.hash(rawPassword)
            user.passwordUpdatedAt = now
        }
        user.customClaims = try customClaims(entry["customAttributes"])
        user.providerData = try providers(entry["providerUserInfo"])
        if let phoneNumber = entry["phoneNumber"]?.stringValue, !phoneNumber.isEmpty {
            guard AuthUserValidation.isValidPhoneNumber(phoneNumber) else {
                throw ServiceError(.invalidArgument, AuthImportFailure.phoneNumberInvalid)
            }
            user.phoneNumber = phoneNumber
        }
        if let email = entry["email"]?.stringValue, !email.isEmpty {
            let canonical = email.lowercased()
            guard AuthUserValidation.isValidEmail(canonical) else {
                throw ServiceError(.invalidArgument, AuthImportFailure.emailInvalid)
            }
            user.email = canonical
        }
        user.emailVerified = entry["emailVerified"]?.boolValue ?? false
        user.disabled = entry["disabled"]?.boolValue ?? false
        user.displayName = entry["displayName"]?.stringValue
        user.photoURL = entry["photoUrl"]?.stringValue
        if let createdAt = entry["createdAt"].flatMap(AuthTimestamp.milliseconds(from:)) {
            user.createdAt = AuthTimestamp.date(milliseconds: createdAt)
        }
        let lastLoginValue = entry["lastLoginAt"] ?? entry["lastSignedInAt"]
        if let lastLogin = lastLoginValue.flatMap(AuthTimestamp.milliseconds(from:)) {
            user.lastLoginAt = AuthTimestamp.date(milliseconds: lastLogin)
        }
        return user
    }

    /// The bcrypt string of a wire `passwordHash`: standard or URL-safe base64 of the string (padded or not), or
    /// the `$2…` string itself.
    ///
    /// - Throws: the per-user sentences ``AuthImportFailure/passwordHashInvalid`` or
    ///   ``AuthImportFailure/passwordHashVariantUnsupported``.
    public static func bcryptString(fromWire value: JSONValue) throws -> String {
        guard let text = value.stringValue else {
            throw ServiceError(.invalidArgument, AuthImportFailure.passwordHashInvalid)
        }
        let candidate: String
        if text.hasPrefix("$2") {
            candidate = text
        } else if let data = AuthBase64.decode(text), let decoded = String(data: data, encoding: .utf8) {
            candidate = decoded
        } else {
            throw ServiceError(.invalidArgument, AuthImportFailure.passwordHashInvalid)
        }
        guard AuthPasswordHasher.bcryptCost(candidate) != nil else {
            throw ServiceError(.invalidArgument, AuthImportFailure.passwordHashInvalid)
        }
        guard AuthPasswordHasher.isVerifiable(candidate) else {
            throw ServiceError(.invalidArgument, AuthImportFailure.passwordHashVariantUnsupported)
        }
        return candidate
    }

    private static func customClaims(_ value: JSONValue?) throws -> [String: JSONValue] {
        switch value {
        case nil, .null?: [:]
        case .string(let text)?: try AuthCustomClaims.parse(text, context: .import)
        case let other?: try AuthCustomClaims.validate(other, context: .import)
        }
    }

    /// The federated providers; the derived `password` and `phone` entries are dropped.
    private static func providers(_ value: JSONValue?) throws -> [AuthProviderInfo] {
        guard let value, !value.isNull else { return [] }
        guard let entries = value.arrayValue else {
            throw ServiceError(.invalidArgument, AuthImportFailure.providerInfoInvalid)
        }
        return try entries.compactMap { entry in
            guard let providerId = entry["providerId"]?.stringValue, !providerId.isEmpty,
                let rawId = entry["rawId"]?.stringValue, !rawId.isEmpty
            else { throw ServiceError(.invalidArgument, AuthImportFailure.providerInfoInvalid) }
            guard providerId != "password", providerId != "phone" else { return nil }
            return AuthProviderInfo(
                providerId: providerId, rawId: rawId, email: entry["email"]?.stringValue?.lowercased(),
                displayName: entry["displayName"]?.stringValue, photoURL: entry["photoUrl"]?.stringValue,
                phoneNumber: entry["phoneNumber"]?.stringValue, federatedId: entry["federatedId"]?.stringValue
            )
        }
    }
}
