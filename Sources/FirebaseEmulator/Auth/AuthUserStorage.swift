import Foundation
import GRDB

/// The SQLite tables of the Authentication service (schema `auth-v1`) and the queries on them.
///
/// `auth_users` holds each user's ``AuthUser`` JSON keyed by (project, uid), with unique indexes on the
/// canonical email and the phone number; `auth_provider_ids` maps (project, provider, raw id) to the uid for
/// federated providers; `auth_config` holds the emulator settings of each project.
enum AuthUserStorage {
    static let schema = StoreSchema(name: "auth-v1") { db in
        try db.execute(sql: """
            CREATE TABLE auth_users (
                project TEXT NOT NULL,
                uid TEXT NOT NULL,
                email TEXT,
                phone TEXT,
                user BLOB NOT NULL,
                PRIMARY KEY (project, uid)
            ) WITHOUT ROWID;
            CREATE UNIQUE INDEX auth_users_email ON auth_users(project, email) WHERE email IS NOT NULL;
            CREATE UNIQUE INDEX auth_users_phone ON auth_users(project, phone) WHERE phone IS NOT NULL;
            CREATE TABLE auth_provider_ids (
                project TEXT NOT NULL,
                provider_id TEXT NOT NULL,
                raw_id TEXT NOT NULL,
                uid TEXT NOT NULL,
                PRIMARY KEY (project, provider_id, raw_id)
            ) WITHOUT ROWID;
            CREATE INDEX auth_provider_ids_uid ON auth_provider_ids(project, uid);
            CREATE TABLE auth_config (
                project TEXT PRIMARY KEY,
                config BLOB NOT NULL
            );
            """)
    }

    static func user(_ db: GRDB.Database, project: String, uid: String) throws -> AuthUser? {
        try fetchOne(db, "uid = ?", [project, uid])
    }

    static func user(_ db: GRDB.Database, project: String, email: String) throws -> AuthUser? {
        try fetchOne(db, "email = ?", [project, email])
    }

    static func user(_ db: GRDB.Database, project: String, phoneNumber: String) throws -> AuthUser? {
        try fetchOne(db, "phone = ?", [project, phoneNumber])
    }

    static func user(_ db: GRDB.Database, project: String, providerId: String, rawId: String) throws -> AuthUser? {
        let uid = try String.fetchOne(
            db,
            sql: "SELECT uid FROM auth_provider_ids WHERE project = ? AND provider_id = ? AND raw_id = ?",
            arguments: [project, providerId, rawId]
        )
        return try uid.flatMap { try user(db, project: project, uid: $0) }
    }

    /// Users with a uid after `afterUid` (all when `nil`), in uid order.
    static func users(_ db: GRDB.Database, project: String, after afterUid: String?, limit: Int?) throws
        -> [AuthUser]
    {
        let rows = try Data.fetchAll(
            db,
            sql: "SELECT user FROM auth_users WHERE project = ? AND uid > ? ORDER BY uid LIMIT ?",
            arguments: [project, afterUid ?? "", limit ?? -1]
        )
        return try rows.map(decode)
    }

    /// Inserts or replaces a user with its provider rows.
    static func save(_ db: GRDB.Database, project: String, user: AuthUser) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO auth_users (project, uid, email, phone, user) VALUES (?, ?, ?, ?, ?)",
            arguments: [project, user.localId, user.email, user.phoneNumber, try encoder.encode(user)]
        )
        try db.execute(
            sql: "DELETE FROM auth_provider_ids WHERE project = ? AND uid = ?",
            arguments: [project, user.localId]
        )
        for provider in user.providerData {
            try db.execute(
                sql: "INSERT OR REPLACE INTO auth_provider_ids (project, provider_id, raw_id, uid) VALUES (?, ?, ?, ?)",
                arguments: [project, provider.providerId, provider.rawId, user.localId]
            )
        }
    }

    static func delete(_ db: GRDB.Database, project: String, uid: String) throws {
        try db.execute(sql: "DELETE FROM auth_users WHERE project = ? AND uid = ?", arguments: [project, uid])
        try db.execute(sql: "DELETE FROM auth_provider_ids WHERE project = ? AND uid = ?", arguments: [project, uid])
    }

    static func deleteAll(_ db: GRDB.Database, project: String) throws {
        try db.execute(sql: "DELETE FROM auth_users WHERE project = ?", arguments: [project])
        try db.execute(sql: "DELETE FROM auth_provider_ids WHERE project = ?", arguments: [project])
    }

    static func config(_ db: GRDB.Database, project: String) throws -> AuthEmulatorConfig {
        guard let data = try Data.fetchOne(
            db, sql: "SELECT config FROM auth_config WHERE project = ?", arguments: [project]
        ) else { return AuthEmulatorConfig() }
        return try JSONDecoder().decode(AuthEmulatorConfig.self, from: data)
    }

    static func saveConfig(_ db: GRDB.Database, project: String, config: AuthEmulatorConfig) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO auth_config (project, config) VALUES (?, ?)",
            arguments: [project, try JSONEncoder().encode(config)]
        )
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    private static func decode(_ data: Data) throws -> AuthUser {
        try JSONDecoder().decode(AuthUser.self, from: data)
    }

    private static func fetchOne(_ db: GRDB.Database, _ condition: String, _ arguments: StatementArguments) throws
        -> AuthUser?
    {
        try Data.fetchOne(
            db, sql: "SELECT user FROM auth_users WHERE project = ? AND \(condition)", arguments: arguments
        ).map(decode)
    }
}
