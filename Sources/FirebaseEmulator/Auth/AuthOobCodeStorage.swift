import Foundation
import GRDB

/// The table of e-mail action codes (schema `auth-v2-oob-codes`): each ``AuthOobCode`` as JSON,
/// keyed by (project, code). A code is deleted when used; an expired one is kept a day, so that
/// its holder hears it expired rather than that it never was.
enum AuthOobCodeStorage {
    static let schema = StoreSchema(name: "auth-v2-oob-codes") { db in
        try db.execute(sql: """
            CREATE TABLE auth_oob_codes (
                project TEXT NOT NULL,
                code TEXT NOT NULL,
                expires_at REAL NOT NULL,
                record BLOB NOT NULL,
                PRIMARY KEY (project, code)
            ) WITHOUT ROWID;
            CREATE INDEX auth_oob_codes_expiry ON auth_oob_codes(project, expires_at);
            """)
    }

    /// How long an expired code is kept.
    static let keptAfterExpiry: TimeInterval = 86400

    static func code(_ db: GRDB.Database, project: String, code: String) throws -> AuthOobCode? {
        try Data.fetchOne(db, sql: "SELECT record FROM auth_oob_codes WHERE project = ? AND code = ?",
            arguments: [project, code]).map(decode)
    }

    /// The project's codes but those expired more than a day before `now`, oldest first.
    static func codes(_ db: GRDB.Database, project: String, now: Date) throws -> [AuthOobCode] {
        try Data.fetchAll(db, sql: "SELECT record FROM auth_oob_codes WHERE project = ? AND expires_at >= ?",
            arguments: [project, now.timeIntervalSince1970 - keptAfterExpiry])
            .map(decode).sorted { ($0.createdAt, $0.code) < ($1.createdAt, $1.code) }
    }

    /// Saves a new code, and forgets the codes that expired more than a day before `now`.
    static func insert(_ db: GRDB.Database, project: String, code: AuthOobCode, now: Date) throws {
        try db.execute(sql: "DELETE FROM auth_oob_codes WHERE project = ? AND expires_at < ?",
            arguments: [project, now.timeIntervalSince1970 - keptAfterExpiry])
        try db.execute(
            sql: "INSERT INTO auth_oob_codes (project, code, expires_at, record) VALUES (?, ?, ?, ?)",
            arguments: [project, code.code, code.expiresAt.timeIntervalSince1970, try JSONEncoder().encode(code)])
    }

    static func delete(_ db: GRDB.Database, project: String, code: String) throws {
        try db.execute(sql: "DELETE FROM auth_oob_codes WHERE project = ? AND code = ?", arguments: [project, code])
    }

    static func deleteAll(_ db: GRDB.Database, project: String) throws {
        try db.execute(sql: "DELETE FROM auth_oob_codes WHERE project = ?", arguments: [project])
    }

    private static func decode(_ data: Data) throws -> AuthOobCode {
        try JSONDecoder().decode(AuthOobCode.self, from: data)
    }
}
