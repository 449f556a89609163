import CloudEvents
import CloudFunctions
import Foundation
import GRDB
import Synchronization

/// The emulated Firebase Authentication service of one project (Identity Toolkit as the Auth emulator serves it).
///
/// Users live in the store (schema `auth-v1`); passwords only as bcrypt hashes. Creating a user (sign-up,
/// admin create, import) emits `google.firebase.auth.user.v1.created` and deleting one emits
/// `google.firebase.auth.user.v1.deleted`, in the same transaction as the change. Bad input throws
/// ``ServiceError`` with the Identity Toolkit message (`EMAIL_EXISTS`, `USER_NOT_FOUND`, ...), HTTP 400 as the
/// emulator answers; a failed call changes nothing and emits nothing.
public final class AuthService: Sendable {
    /// The project the service serves.
    public let project: String
    /// The project number in `securetoken` responses (`project_id`), as the emulator reports it.
    public static let projectNumber = "12345"

    let store: EmulatorStore
    let clock: any BusClock
    let emit: @Sendable ([OutboxEntry]) -> Void
    let hasher: AuthPasswordHasher
    private let random: Mutex<SplitMixRandom>
    private let settings: Mutex<AuthEmulatorConfig>
    /// The blocking functions client sign-ups and sign-ins run.
    let blocking = Mutex<BlockingFunctions?>(nil)

    /// Opens the service on a store and loads the project's emulator settings.
    ///
    /// - Parameters:
    ///   - store: where users live.
    ///   - project: the project id (`aud` of ID tokens, CloudEvent sources).
    ///   - clock: the only time source.
    ///   - emit: called with the outbox entries of each committed write.
    ///   - hasher: the bcrypt hasher for new passwords (tests use cost 4).
    ///   - randomSeed: seeds uid, salt and token randomness (a system-random seed when `nil`).
    package init(
        store: EmulatorStore,
        project: String,
        clock: any BusClock,
        emit: @escaping @Sendable ([OutboxEntry]) -> Void,
        hasher: AuthPasswordHasher = AuthPasswordHasher(),
        randomSeed: UInt64? = nil
    ) throws {
        self.store = store
        self.project = project
        self.clock = clock
        self.emit = emit
        self.hasher = hasher
        var system = SystemRandomNumberGenerator()
        random = Mutex(SplitMixRandom(seed: randomSeed ?? system.next()))
        let config = try store.read { db in try AuthUserStorage.config(db, project: project) }
        settings = Mutex(config)
    }

    /// The project's emulator settings.
    package var emulatorConfig: AuthEmulatorConfig { settings.withLock { $0 } }

    /// Changes the emulator settings (`PATCH /emulator/v1/projects/{p}/config`); `nil` leaves a setting as is.
    ///
    /// - Returns: the settings now in force.
    @discardableResult
    package func updateEmulatorConfig(enableImprovedEmailPrivacy: Bool?) async throws -> AuthEmulatorConfig {
        var config = emulatorConfig
        if let enableImprovedEmailPrivacy { config.enableImprovedEmailPrivacy = enableImprovedEmailPrivacy }
        _ = try await store.write { [project, config] transaction in
            try AuthUserStorage.saveConfig(transaction.db, project: project, config: config)
        }
        settings.withLock { $0 = config }
        return config
    }

    /// Runs a write transaction and hands what it emitted to `emit` once it has committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (inout StoreTransaction) throws -> T) async throws -> T {
        let (value, entries) = try await store.write(body)
        if !entries.isEmpty { emit(entries) }
        return value
    }

    /// Reads from the store.
    func read<T>(_ body: (GRDB.Database) throws -> T) throws -> T {
        try store.read(body)
    }

    /// A generator seeded from the shared source, so slow work (bcrypt) runs without holding the lock.
    func makeGenerator() -> SplitMixRandom {
        random.withLock { SplitMixRandom(seed: $0.next()) }
    }

    /// Emits the user-created or user-deleted event for `user`.
    func emitUserEvent(_ type: String, _ user: AuthUser, in transaction: inout StoreTransaction) throws {
        try transaction.emit(.authUser(type, user: user.cloudUserRecord, project: project, time: clock.now))
    }
}
