import Foundation
import CloudFunctions

/// A parsed `accounts:batchCreate` request: the users to store and the per-user failures.
///
/// Request-level problems throw; per-user problems become ``failures`` (the request still succeeds). Checks
/// that need the store (`localId` taken, raw id linked elsewhere) are left to the caller, which appends
/// failures with ``AuthImportFailure/localIdExists`` or ``AuthImportFailure/rawIdExists``.
package struct AuthUserImport: Sendable, Hashable {
    /// The most users one request may carry.
    public static let maximumUsers = 1000
    /// The `hashAlgorithm` values Identity Toolkit knows.
    public static let knownHashAlgorithms: Set<String> = [
        "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5", "HMAC_SHA512", "SCRYPT", "STANDARD_SCRYPT", "PBKDF_SHA1",
        "PBKDF2_SHA256", "MD5", "SHA1", "SHA256", "SHA512", "BCRYPT", "ARGON2",
    ]

    /// The users that passed the checks, with their request index.
    public var users: [AuthImportedUser]
    /// The users that failed, in index order.
    public var failures: [AuthImportFailure]
    /// The request's `allowOverwrite`: whether existing accounts may be replaced.
    public var allowOverwrite: Bool
    /// The request's `sanityCheck`.
    public var sanityCheck: Bool

    /// Parses and checks a batch-create request body.
    ///
    /// - Parameters:
    ///   - request: the JSON body.
    ///   - now: the upload time (default `createdAt`, and `validSince` of every user).
    ///   - hasher: hashes `rawPassword`s.
    /// - Throws: `MISSING_USER_ACCOUNT`, `MAXIMUM_USER_COUNT_EXCEEDED : …`, `INVALID_HASH_ALGORITHM : …`,
    ///   `UNSUPPORTED_HASH_ALGORITHM : …`, `DUPLICATE_LOCAL_ID : <id>`, and with `sanityCheck`
    ///   `DUPLICATE_EMAIL : <email>` / `DUPLICATE_RAW_ID : Provider id(<p>), Raw id(<r>)`.
    public init(
        parsing request: JSONValue,
        now: Date,
        hasher: AuthPasswordHasher
    ) throws {
        guard let entries = request["users"]?.arrayValue, !entries.isEmpty else {
            throw ServiceError(.invalidArgument, "MISSING_USER_ACCOUNT")
        }
        guard entries.count <= Self.maximumUsers else {
            throw ServiceError(.invalidArgument, 
                "MAXIMUM_USER_COUNT_EXCEEDED : A maximum of \(Self.maximumUsers) users can be imported at once."
            )
        }
        try Self.checkHashAlgorithm(request["hashAlgorithm"], entries: entries)
        try Self.checkDuplicateLocalIds(entries)
        sanityCheck = request["sanityCheck"]?.boolValue ?? false
        if sanityCheck { try Self.checkSanity(entries) }
        allowOverwrite = request["allowOverwrite"]?.boolValue ?? false
        users = []
        failures = []
        for (index, entry) in entries.enumerated() {
            do {
                let user = try Self.user(from: entry, now: now, hasher: hasher)
                users.append(AuthImportedUser(index: index, user: user))
            } catch let error as ServiceError {
                failures.append(AuthImportFailure(index: index, message: error.message))
            }
        }
    }

    /// The response body: `{kind: "identitytoolkit#UploadAccountResponse", error: [{index, message}]}`.
    ///
    /// - Parameter extraFailures: failures found while storing (e.g. ``AuthImportFailure/localIdExists``).
    public func response(adding extraFailures: [AuthImportFailure] = []) -> JSONValue {
        let all = (failures + extraFailures).sorted { $0.index < $1.index }
        return .object(["kind": "identitytoolkit#UploadAccountResponse", "error": .array(all.map(\.json))])
    }

    private static func checkHashAlgorithm(_ value: JSONValue?, entries: [JSONValue]) throws {
        guard let value, !value.isNull else { return }
        guard let algorithm = value.stringValue, knownHashAlgorithms.contains(algorithm) else {
            throw ServiceError(.invalidArgument, "INVALID_HASH_ALGORITHM : \(value.stringValue ?? value.serialized())")
        }
        let hasHashes = entries.contains { !($0["passwordHash"]?.stringValue ?? "").isEmpty }
        guard algorithm == "BCRYPT" || !hasHashes else {
            throw ServiceError(.invalidArgument, 
                "UNSUPPORTED_HASH_ALGORITHM : \(algorithm); this emulator only imports BCRYPT password hashes"
            )
        }
    }

    private static func checkDuplicateLocalIds(_ entries: [JSONValue]) throws {
        var seen: Set<String> = []
        for case let localId? in entries.map({ $0["localId"]?.stringValue }) where !localId.isEmpty {
            guard seen.insert(localId).inserted else {
                throw ServiceError(.invalidArgument, "DUPLICATE_LOCAL_ID : \(localId)")
            }
        }
    }

    private static func checkSanity(_ entries: [JSONValue]) throws {
        var emails: Set<String> = []
        var rawIds: Set<[String]> = []
        for entry in entries {
            if let email = entry["email"]?.stringValue?.lowercased(), !email.isEmpty {
                guard emails.insert(email).inserted else {
                    throw ServiceError(.invalidArgument, "DUPLICATE_EMAIL : \(email)")
                }
            }
            for provider in entry["providerUserInfo"]?.arrayValue ?? [] {
                guard let providerId = provider["providerId"]?.stringValue,
                    let rawId = provider["rawId"]?.stringValue
                else { continue }
                guard rawIds.insert([providerId, rawId]).inserted else {
                    throw ServiceError(.invalidArgument, 
                        "DUPLICATE_RAW_ID : Provider id(\(providerId)), Raw id(\(rawId))"
                    )
                }
            }
        }
    }
}
