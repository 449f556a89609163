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
            let tree: String = row["tree"]
            namespace.tree.root = try JSONValue(parsing: tree)
            namespace.log.sequence = row["seq"]
            namespace.log.snapshotBytes = tree.utf8.count
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
            if sequence > namespace.log.sequence {
                let path: String = row["path"]
                let text: String = row["value"]
                let segments = path.split(separator: "/").map(String.init)
                let value = try JSONValue(parsing: text)
                let entry = DatabaseLogEntry(kind: kind, path: DatabasePath(uncheckedSegments: segments), value: value)
                entry.replay(on: &namespace.tree)
                namespace.log.sequence = sequence
                namespace.log.writesSinceSnapshot += 1
                namespace.log.loggedBytes += path.utf8.count + text.utf8.count
            }
            namespaces[name] = namespace
        }
        return namespaces
    }

    /// Appends a write to the log as write number `sequence`; returns the row's bytes (path and value).
    static func append(_ entry: DatabaseLogEntry, namespace: String, sequence: Int64, in db: GRDB.Database) throws -> Int {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO rtdb_log (namespace, seq, kind, path, value) VALUES (?, ?, ?, ?, ?)")
        let path = entry.path.description
        let value = entry.value.serialized(sortedKeys: false)
        try statement.execute(arguments: [namespace, sequence, entry.kind.rawValue, path, value])
        return path.utf8.count + value.utf8.count
    }

    /// Stores `tree` as the namespace's state after write `sequence` and drops the log it covers;
    /// returns the snapshot's bytes.
    static func saveSnapshot(_ tree: DatabaseTree, namespace: String, sequence: Int64, in db: GRDB.Database) throws -> Int {
        let text = tree.root.serialized(sortedKeys: false)
        try db.execute(
            sql: """
                INSERT INTO rtdb_snapshots (namespace, seq, tree) VALUES (?, ?, ?)
                ON CONFLICT (namespace) DO UPDATE SET seq = excluded.seq, tree = excluded.tree
                """,
            arguments: [namespace, sequence, text])
        try db.execute(sql: "DELETE FROM rtdb_log WHERE namespace = ? AND seq <= ?", arguments: [namespace, sequence])
        return text.utf8.count
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
