import CloudEvents
import CloudFunctions
import Crypto
import Foundation
import GRDB
import Synchronization

/// Emulated Firebase Cloud Messaging: device registrations, topic subscriptions, sends to a
/// token, a topic or a condition, and a per-device inbox of every message delivered.
///
/// A topic send is stored once and reaches a device through its subscription history
/// (subscribed from message N until message M), so fan-out to any number of subscribers is
/// one pass over them in memory and one row in the store. Token and condition sends record
/// one inbox row per recipient.
public final class MessagingService: Sendable {
    struct State {
        var devices: Set<String> = []
        var index = FCMTopicIndex()
        var nextSequence: Int64 = 1
        var listeners: [String: [UUID: AsyncStream<InboxMessage>.Continuation]] = [:]
    }

    /// The result of a send.
    public struct SendResult: Sendable, Hashable {
        /// The message name, `projects/{project}/messages/{id}`.
        public var name: String
        /// How many devices received it (0 for validate-only sends).
        public var recipients: Int
    }

    /// The project in message names.
    public let project: String
    let store: EmulatorStore
    let clock: any BusClock
    let validation = FCMMessageValidation()
    let state: Mutex<State>

    /// Opens the service on a store, loading devices and subscriptions.
    package init(
        store: EmulatorStore,
        project: String,
        clock: any BusClock,
        emit: @escaping @Sendable ([OutboxEntry]) -> Void = { _ in }
    ) throws {
        self.store = store
        self.project = project
        self.clock = clock
        var loaded = State()
        try store.read { db in
            loaded.devices = try Set(String.fetchAll(db, sql: "SELECT token FROM fcm_devices"))
            let rows = try Row.fetchCursor(db, sql: "SELECT token, topic FROM fcm_subscriptions WHERE to_seq IS NULL")
            while let row = try rows.next() {
                _ = loaded.index.subscribe(token: row["token"], to: row["topic"])
            }
            loaded.nextSequence = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM fcm_messages").map { $0 + 1 } ?? 1
        }
        state = Mutex(loaded)
    }

    /// Registers a new device and returns its FCM registration token.
    public func registerDevice(platform: String? = nil) async throws -> String {
        try await registerDevices(count: 1, platform: platform)[0]
    }

    /// Registers several devices at once, in one transaction.
    public func registerDevices(count: Int, platform: String? = nil) async throws -> [String] {
        var generator = SplitMixRandom()
        let tokens = (0..<count).map { _ in FCMRegistrationToken.generate(using: &generator) }
        let now = clock.now.timeIntervalSince1970
        _ = try await store.write { transaction in
            let statement = try transaction.db.makeStatement(
                sql: "INSERT INTO fcm_devices (token, platform, created_at) VALUES (?, ?, ?)"
            )
            for token in tokens { try statement.execute(arguments: [token, platform, now]) }
        }
        state.withLock { $0.devices.formUnion(tokens) }
        return tokens
    }

    /// The FCM registration tokens of APNs device tokens (`/iid/v1:batchImport`), each registered
    /// as an iOS device. An APNs token imported again for the same app and APNs environment gets
    /// the registration token it got before, and registers nothing new: an import that stopped
    /// half-way can be run again.
    public func importAPNSTokens(_ request: APNSTokenImportRequest) async throws -> [String] {
        let tokens = request.apnsTokens.map { apns in
            let digest = SHA256.hash(data: Data("\(request.application)\n\(request.sandbox)\n\(apns)".utf8))
            var generator = SplitMixRandom(seed: digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
            return FCMRegistrationToken.generate(using: &generator)
        }
        let now = clock.now.timeIntervalSince1970
        _ = try await store.write { transaction in
            let statement = try transaction.db.makeStatement(
                sql: "INSERT OR IGNORE INTO fcm_devices (token, platform, created_at) VALUES (?, 'ios', ?)"
            )
            for token in tokens { try statement.execute(arguments: [token, now]) }
        }
        state.withLock { $0.devices.formUnion(tokens) }
        return tokens
    }

    /// Whether a token is registered.
    public func isRegistered(_ token: String) -> Bool {
        state.withLock { $0.devices.contains(token) }
    }

    /// The topics a device is subscribed to.
    public func topics(forToken token: String) -> Set<String> {
        state.withLock { $0.index.topics(forToken: token) }
    }

    /// How many devices are subscribed to a topic.
    public func subscriberCount(forTopic topic: String) -> Int {
        state.withLock { $0.index.subscriberCount(forTopic: topic) }
    }

    /// The registered devices, newest first, at most `limit`.
    public func devices(limit: Int = 1000) throws -> [MessagingDevice] {
        let rows = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT token, platform, created_at FROM fcm_devices ORDER BY created_at DESC, token LIMIT ?",
                arguments: [limit])
        }
        return state.withLock { state in
            rows.map { row in
                let token: String = row["token"]
                return MessagingDevice(token: token, platform: row["platform"],
                    createdAt: Date(timeIntervalSince1970: row["created_at"]),
                    topics: state.index.topics(forToken: token).sorted())
            }
        }
    }
}

extension MessagingService {
    static let exportedTables = ["fcm_devices", "fcm_subscriptions", "fcm_messages", "fcm_inbox"]

    /// Devices, subscription history, messages and inboxes (for `emulators:export`).
    public func exportState() throws -> JSONValue {
        try store.read { db in try exportState(in: db) }
    }

    /// ``exportState()`` inside a transaction of the store.
    func exportState(in db: GRDB.Database) throws -> JSONValue {
        var tables: [String: JSONValue] = [:]
        for table in Self.exportedTables { tables[table] = try StoreTableDump.rows(db, table: table) }
        return .object(tables)
    }

    /// Replaces the messaging state inside an import transaction.
    func importState(_ state: JSONValue, file: String, in db: GRDB.Database) throws {
        for table in Self.exportedTables {
            try db.execute(sql: "DELETE FROM \(table)")
            try StoreTableDump.insert(db, table: table, rows: state[table] ?? .array([]), file: file)
        }
    }

    /// Reloads devices, the topic index and the message sequence after an import.
    func reloadFromStore() throws {
        let fresh = try MessagingService(store: store, project: project, clock: clock)
        let loaded = fresh.state.withLock { ($0.devices, $0.index, $0.nextSequence) }
        state.withLock { state in
            state.devices = loaded.0
            state.index = loaded.1
            state.nextSequence = loaded.2
        }
    }
}
