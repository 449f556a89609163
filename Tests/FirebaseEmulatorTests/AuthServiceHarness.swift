import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
@testable import FirebaseEmulator
import Foundation
import Synchronization

/// Records what a service hands to its `emit` callback.
final class AuthEventRecorder: Sendable {
    private let entries = Mutex<[OutboxEntry]>([])

    /// The callback to give the service.
    var emit: @Sendable ([OutboxEntry]) -> Void {
        { [self] batch in entries.withLock { $0.append(contentsOf: batch) } }
    }

    /// Every event emitted so far, in order.
    var events: [CloudEvent] { entries.withLock { $0.map(\.event) } }

    /// Forgets what was recorded.
    func reset() { entries.withLock { $0.removeAll() } }
}

/// An Auth service on a fresh store with a manual clock, cost-4 bcrypt and a fixed seed.
struct AuthServiceHarness {
    static let start = Date(timeIntervalSince1970: 1_700_000_000.25)

    let store: EmulatorStore
    let clock: ManualClock
    let recorder = AuthEventRecorder()
    let service: AuthService

    init(directory: URL? = nil, project: String = "demo-auth", clock: ManualClock = ManualClock(now: start)) throws {
        store = try EmulatorStore(directory: directory)
        self.clock = clock
        service = try AuthService(
            store: store, project: project, clock: clock, emit: recorder.emit, hasher: AuthFixtures.hasher,
            randomSeed: 7
        )
    }

    /// The `ServiceError` a call throws, or `nil`.
    static func error(_ body: () async throws -> Void) async -> ServiceError? {
        do {
            try await body()
            return nil
        } catch let error as ServiceError {
            return error
        } catch {
            return ServiceError(.unknown, "unexpected: \(error)")
        }
    }

    /// A temporary directory, removed by the caller.
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("auth-service-\(UUID().uuidString)")
    }
}
