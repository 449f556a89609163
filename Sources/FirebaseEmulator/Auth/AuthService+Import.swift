import CloudFunctions
import Foundation
import GRDB

/// What `accounts:batchCreate` did: the users stored and the users refused.
package struct AuthImportOutcome: Sendable, Hashable {
    /// The uids stored, in request order.
    public var imported: [String]
    /// The users refused, in index order (the response's `error`).
    public var failures: [AuthImportFailure]

    /// The response body: `{kind: "identitytoolkit#UploadAccountResponse", error: [{index, message}]}`.
    public var json: JSONValue {
        .object(["kind": "identitytoolkit#UploadAccountResponse", "error": .array(failures.map(\.json))])
    }
}

extension AuthService {
    /// Imports users (`accounts:batchCreate`): BCRYPT hashes (standard or URL-safe base64 of the `$2a$`/`$2b$`/
    /// `$2y$` string) stay verifiable, so imported users sign in with their original password.
    ///
    /// Per-user problems do not fail the request: besides those of ``AuthUserImport``, a taken uid without
    /// `allowOverwrite`, an email or phone number of another account, and a provider raw id linked to another
    /// account are refused. Each new user emits `user.created` (an overwritten one does not), in one transaction.
    ///
    /// - Parameter body: the request body.
    /// - Throws: the request-level errors of ``AuthUserImport`` (`MISSING_USER_ACCOUNT`, `DUPLICATE_LOCAL_ID : …`,
    ///   `INVALID_HASH_ALGORITHM : …`, ...).
    @discardableResult
    package func importUsers(_ body: JSONValue) async throws -> AuthImportOutcome {
        let request = try AuthUserImport(parsing: body, now: clock.now, hasher: hasher)
        return try await write { [self] transaction in try store(request, in: &transaction) }
    }

    /// Stores the users of a checked request that have no problem of their own.
    private func store(_ request: AuthUserImport, in transaction: inout StoreTransaction) throws -> AuthImportOutcome {
        var imported: [String] = []
        var failures = request.failures
        for entry in request.users {
            if let message = try importProblem(entry.user, request: request, db: transaction.db) {
                failures.append(AuthImportFailure(index: entry.index, message: message))
                continue
            }
            let existed = try AuthUserStorage.user(transaction.db, project: project, uid: entry.user.localId)
            try AuthUserStorage.save(transaction.db, project: project, user: entry.user)
            if existed == nil { try emitUserEvent(FirebaseEventType.authUserCreated, entry.user, in: &transaction) }
            imported.append(entry.user.localId)
        }
        return AuthImportOutcome(imported: imported, failures: failures.sorted { $0.index < $1.index })
    }

    /// Why one imported user cannot be stored, as the emulator words it, or `nil`.
    private func importProblem(_ user: AuthUser, request: AuthUserImport, db: GRDB.Database) throws -> String? {
        for provider in user.providerData {
            let other = try AuthUserStorage.user(
                db, project: project, providerId: provider.providerId, rawId: provider.rawId
            )
            if let other, other.localId != user.localId {
                return AuthImportFailure.rawIdExists
            }
        }
        if let email = user.email, let other = try AuthUserStorage.user(db, project: project, email: email),
            other.localId != user.localId
        {
            return request.sanityCheck
                ? "email exists in other account in database"
                : "((Auth Emulator does not support importing duplicate email: \(email)))"
        }
        if let phone = user.phoneNumber, let other = try AuthUserStorage.user(db, project: project, phoneNumber: phone),
            other.localId != user.localId
        {
            return "phone number exists in other account in database"
        }
        if !request.allowOverwrite, try AuthUserStorage.user(db, project: project, uid: user.localId) != nil {
            return AuthImportFailure.localIdExists
        }
        return nil
    }

    /// Every user of a project, in uid order, as stored (for `emulators:export`).
    ///
    /// - Parameter project: the project; this service's project when `nil`.
    public func exportUsers(project: String? = nil) throws -> [AuthUser] {
        try read { db in try exportUsers(in: db, project: project) }
    }

    /// ``exportUsers(project:)`` inside a transaction of the store (the emulator's export of all
    /// services at one point in time).
    func exportUsers(in db: GRDB.Database, project: String? = nil) throws -> [AuthUser] {
        try AuthUserStorage.users(db, project: project ?? self.project, after: nil, limit: nil)
    }

    /// Replaces every user of this project with `users` (for `emulators:import`); emits nothing.
    ///
    /// - Throws: `DUPLICATE_LOCAL_ID`, `EMAIL_EXISTS` or `PHONE_NUMBER_EXISTS` when two users collide (then
    ///   nothing changes).
    public func importExported(_ users: [AuthUser]) async throws {
        try await write { [self] transaction in try importExported(users, in: transaction.db) }
    }

    /// ``importExported(_:)`` inside a transaction of the store (the emulator's import of all
    /// services at once).
    func importExported(_ users: [AuthUser], in db: GRDB.Database) throws {
        try AuthUserStorage.deleteAll(db, project: project)
        for user in users {
            try checkUnique(user, in: db)
            try AuthUserStorage.save(db, project: project, user: user)
        }
    }
}

extension AuthService {
    /// The export formats ``importExport(_:format:hashAlgorithm:)`` reads.
    package enum ExportFormat: String, Sendable, CaseIterable {
        /// `firebase auth:export` JSON: `{"users": [...]}`.
        case firebase
        /// A Parse `_User` export (bcrypt hashes).
        case parse
    }

    /// Why an export file cannot be imported as given.
    package enum ExportProblem: Error {
        /// Not a Parse `_User` export (the conversion's error).
        case notParse(any Error)
        /// Not `{"users": [...]}`.
        case notFirebase
        /// Users with password hashes, and no hash algorithm named.
        case hashesWithoutAlgorithm
    }

    /// The `accounts:batchCreate` users of an export file, and the hash algorithm of their
    /// passwords: what `auth:import` sends and the console's import stores.
    package static func exportedUsers(_ export: JSONValue, format: ExportFormat, hashAlgorithm: String?)
        throws(ExportProblem) -> (users: [JSONValue], hashAlgorithm: String?)
    {
        switch format {
        case .parse:
            do {
                return (try ParseUserExport.batchCreateRequest(from: export)["users"]?.arrayValue ?? [], "BCRYPT")
            } catch {
                throw .notParse(error)
            }
        case .firebase:
            guard let list = export["users"]?.arrayValue else { throw .notFirebase }
            let users = list.map(firebaseExportUser)
            if hashAlgorithm == nil, users.contains(where: { $0["passwordHash"] != nil }) { throw .hashesWithoutAlgorithm }
            return (users, hashAlgorithm?.uppercased())
        }
    }

    /// Imports a whole export file, 1,000 users at a time as batchCreate takes them, all or
    /// nothing: every batch is checked before any is stored, and all are stored in one
    /// transaction, so a problem of the file (a uid given twice, anywhere in it) stores no user.
    ///
    /// - Returns: the uids stored, and the users refused with their index in the export.
    /// - Throws: `INVALID_PARSE_EXPORT : …` or `INVALID_ARGUMENT : …` for a file that is not an
    ///   export of that format, or password hashes without a hash algorithm; the request-level
    ///   errors of ``AuthUserImport`` (`DUPLICATE_LOCAL_ID : …`, ...).
    package func importExport(_ export: JSONValue, format: ExportFormat, hashAlgorithm: String?) async throws
        -> AuthImportOutcome
    {
        let users: [JSONValue]
        let algorithm: String?
        do {
            (users, algorithm) = try Self.exportedUsers(export, format: format, hashAlgorithm: hashAlgorithm)
        } catch .notParse(let error) {
            throw error
        } catch .notFirebase {
            throw ServiceError(.invalidArgument, "INVALID_ARGUMENT : not a Firebase auth export: expected {\"users\": [...]}")
        } catch .hashesWithoutAlgorithm {
            throw ServiceError(.invalidArgument, "INVALID_ARGUMENT : the users have password hashes: give their hash algorithm (BCRYPT)")
        }
        let now = clock.now
        let batches = try stride(from: 0, to: users.count, by: AuthUserImport.maximumUsers).map { start in
            var request: [String: JSONValue] = [
                "users": .array(Array(users[start..<min(start + AuthUserImport.maximumUsers, users.count)])),
            ]
            if let algorithm { request["hashAlgorithm"] = .string(algorithm) }
            return (start: start, request: try AuthUserImport(parsing: .object(request), now: now, hasher: hasher))
        }
        // A uid given twice is refused within a batch; in two batches of one file, too.
        var uids = Set<String>()
        for batch in batches {
            for entry in batch.request.users where !uids.insert(entry.user.localId).inserted {
                throw ServiceError(.invalidArgument, "DUPLICATE_LOCAL_ID : \(entry.user.localId)")
            }
        }
        return try await write { [self] transaction in
            var outcome = AuthImportOutcome(imported: [], failures: [])
            for (start, request) in batches {
                let batch = try store(request, in: &transaction)
                outcome.imported += batch.imported
                outcome.failures += batch.failures.map { AuthImportFailure(index: start + $0.index, message: $0.message) }
            }
            return outcome
        }
    }

    /// A user of a Firebase CLI export, as batchCreate takes it (`lastSignedInAt` → `lastLoginAt`).
    package static func firebaseExportUser(_ user: JSONValue) -> JSONValue {
        guard case .object(var fields) = user else { return user }
        if let lastSignedIn = fields.removeValue(forKey: "lastSignedInAt") { fields["lastLoginAt"] = lastSignedIn }
        return .object(fields)
    }
}
