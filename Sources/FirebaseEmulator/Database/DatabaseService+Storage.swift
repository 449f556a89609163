import CloudFunctions
import Foundation
import GRDB

extension DatabaseService {
    static let schema = StoreSchema(name: "database-v1") { db in
        try db.execute(sql: """
            CREATE TABLE rtdb_snapshots (namespace TEXT PRIMARY KEY, seq INTEGER NOT NULL, tree TEXT NOT NULL);
            CREATE TABLE rtdb_log (
                namespace TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL,
                value TEXT NOT NULL, PRIMARY KEY (namespace, seq)
            ) WITHOUT ROWID;
            """)
    }

    /// Rebuilds every namespace: its snapshot, then its log in order.
    static func loadNamespaces(_ db: GRDB.Database) throws -> [String: Namespace] {
        var namespaces: [String: Namespace] = [:]
        let snapshots = try Row.fetchCursor(db, sql: "SELECT namespace, seq, tree FROM rtdb_snapshots")
        while let row = try snapshots.next() {
            var namespace = Namespace()
            namespace.tree.root = try JSONValue(parsing: row["tree"] as String)
            namespace.sequence = row["seq"]
            namespaces[row["namespace"]] = namespace
        }
        let log = try Row.fetchCursor(
            db, sql: "SELECT namespace, seq, kind, path, value FROM rtdb_log ORDER BY namespace, seq")
        while let row = try log.next() {
            let name: String = row["namespace"]
            let sequence: Int64 = row["seq"]
            let kindText: String = row["kind"]
            guard let kind = DatabaseLogEntry.Kind(rawValue: kindText) else {
                throw ServiceError(.internal, "unknown log entry kind \(kindText)")
            }
            var namespace = namespaces.removeValue(forKey: name) ?? Namespace()
            if sequence > namespace.sequence {
                let segments = (row["path"] as String).split(separator: "/").map(String.init)
                let value = try JSONValue(parsing: row["value"] as String)
                let entry = DatabaseLogEntry(kind: kind, path: DatabasePath(uncheckedSegments: segments), value: value)
                entry.replay(on: &namespace.tree)
                namespace.sequence = sequence
                namespace.writesSinceSnapshot += 1
            }
            namespaces[name] = namespace
        }
        return namespaces
    }

    /// Appends a write to the log as write number `sequence`.
    static func append(_ entry: DatabaseLogEntry, namespace: String, sequence: Int64, in db: GRDB.Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO rtdb_log (namespace, seq, kind, path, value) VALUES (?, ?, ?, ?, ?)")
        try statement.execute(arguments: [
            namespace, sequence, entry.kind.rawValue, entry.path.description, entry.value.serialized(sortedKeys: false),
        ])
    }

    /// Stores `tree` as the namespace's state after write `sequence` and drops the log it covers.
    static func saveSnapshot(_ tree: DatabaseTree, namespace: String, sequence: Int64, in db: GRDB.Database) throws {
        try db.execute(
            sql: """
                INSERT INTO rtdb_snapshots (namespace, seq, tree) VALUES (?, ?, ?)
                ON CONFLICT (namespace) DO UPDATE SET seq = excluded.seq, tree = excluded.tree
                """,
            arguments: [namespace, sequence, tree.root.serialized(sortedKeys: false)])
        try db.execute(sql: "DELETE FROM rtdb_log WHERE namespace = ? AND seq <= ?", arguments: [namespace, sequence])
    }
}

extension DatabaseService {
    /// How many log rows the store holds for a namespace (the writes since its last snapshot).
    func loggedWriteCount(namespace: String) throws -> Int {
        try store.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rtdb_log WHERE namespace = ?", arguments: [namespace]) ?? 0
        }
    }
}
