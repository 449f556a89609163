import CloudFunctions
import Foundation
import GRDB

/// The functions deployed last, kept with the rest of the state so that an emulator restarted
/// on the same data directory runs them again by itself.
public struct StoredDeployment: Sendable, Hashable {
    /// The functions binary.
    public var binary: String
    /// The manifest as deployed (JSON).
    public var manifest: Data
    /// The functions selected with `--only`, if any.
    public var only: [String]?
    /// When it was deployed.
    public var time: Date
    /// The variables of the package's `.env` files and params.
    public var environment: [String: String]
    /// The values of the secrets its functions read (from the package's `.secret.local`, kept
    /// beside it in the data directory so that a restart can give them again).
    public var secrets: [String: String]

    /// Creates a record.
    public init(
        binary: String, manifest: Data, only: [String]?, time: Date, environment: [String: String] = [:],
        secrets: [String: String] = [:]
    ) {
        self.binary = binary
        self.manifest = manifest
        self.only = only
        self.time = time
        self.environment = environment
        self.secrets = secrets
    }
}

extension EmulatorStore {
    static let deploymentSchema = StoreSchema(name: "deployment-v1") { db in
        try db.execute(sql: """
            CREATE TABLE deployment (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                binary TEXT NOT NULL,
                manifest BLOB NOT NULL,
                only TEXT,
                deployed_at REAL NOT NULL
            )
            """)
    }

    /// The worker process id of the deployment, kept so that an emulator started after a crash
    /// can end a worker the crashed one left behind.
    static let workerProcessSchema = StoreSchema(name: "deployment-v2-worker-pid") { db in
        try db.execute(sql: "ALTER TABLE deployment ADD COLUMN worker_pid INTEGER")
    }

    /// The worker processes that run, one row each (a function may run several instances), kept
    /// so that an emulator started after a crash can end those the crashed one left behind.
    static let workerProcessesSchema = StoreSchema(name: "deployment-v3-worker-processes") { db in
        try db.execute(sql: "CREATE TABLE worker_process (pid INTEGER PRIMARY KEY, binary TEXT NOT NULL)")
        try db.execute(sql: """
            INSERT INTO worker_process (pid, binary)
            SELECT worker_pid, binary FROM deployment WHERE worker_pid IS NOT NULL
            """)
    }

    /// The deployment's variables and secrets, so that a restart gives its workers the same.
    static let deploymentEnvironmentSchema = StoreSchema(name: "deployment-v4-environment") { db in
        try db.execute(sql: "ALTER TABLE deployment ADD COLUMN environment TEXT")
        try db.execute(sql: "ALTER TABLE deployment ADD COLUMN secrets TEXT")
    }

    /// Notes a running worker process and the binary it runs.
    public func recordWorkerProcess(_ pid: Int32, binary: String) async throws {
        _ = try await write { transaction in
            try transaction.db.execute(sql: "INSERT OR REPLACE INTO worker_process (pid, binary) VALUES (?, ?)",
                arguments: [pid, binary])
        }
    }

    /// Forgets a worker process once it has stopped.
    public func forgetWorkerProcess(_ pid: Int32) async throws {
        _ = try await write { transaction in
            try transaction.db.execute(sql: "DELETE FROM worker_process WHERE pid = ?", arguments: [pid])
        }
    }

    /// The worker processes noted as running, and the binary each runs.
    public func workerProcesses() throws -> [(pid: Int32, binary: String)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT pid, binary FROM worker_process ORDER BY pid").map { ($0["pid"], $0["binary"]) }
        }
    }

    /// Records the deployment that now runs, replacing the one before.
    public func saveDeployment(_ deployment: StoredDeployment) async throws {
        let only = deployment.only.map { JSONValue.array($0.map(JSONValue.string)).serialized() }
        let environment = JSONValue.object(deployment.environment.mapValues(JSONValue.string)).serialized()
        let secrets = JSONValue.object(deployment.secrets.mapValues(JSONValue.string)).serialized()
        _ = try await write { transaction in
            try transaction.db.execute(
                sql: """
                    INSERT INTO deployment (id, binary, manifest, only, deployed_at, environment, secrets)
                    VALUES (1, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET binary = excluded.binary, manifest = excluded.manifest,
                        only = excluded.only, deployed_at = excluded.deployed_at, environment = excluded.environment,
                        secrets = excluded.secrets
                    """,
                arguments: [deployment.binary, deployment.manifest, only, deployment.time.timeIntervalSince1970,
                    environment, secrets]
            )
        }
    }

    /// The last deployment, if there was one.
    public func lastDeployment() throws -> StoredDeployment? {
        try read { db in
            try Row.fetchOne(db, sql: """
                SELECT binary, manifest, only, deployed_at, environment, secrets FROM deployment WHERE id = 1
                """).map { row in
                let only = (row["only"] as String?).flatMap { try? JSONValue(parsing: $0) }?.arrayValue?
                    .compactMap(\.stringValue)
                func strings(_ column: String) -> [String: String] {
                    ((row[column] as String?).flatMap { try? JSONValue(parsing: $0) }?.objectValue ?? [:])
                        .compactMapValues(\.stringValue)
                }
                return StoredDeployment(binary: row["binary"], manifest: row["manifest"], only: only,
                    time: Date(timeIntervalSince1970: row["deployed_at"]), environment: strings("environment"),
                    secrets: strings("secrets"))
            }
        }
    }
}
