import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Synchronization

/// A database service on a store, with everything it emits recorded.
struct DatabaseServiceHarness {
    static let namespace = "demo-project-default-rtdb"

    final class Recorder: Sendable {
        private let entries = Mutex<[OutboxEntry]>([])

        func record(_ new: [OutboxEntry]) { entries.withLock { $0 += new } }

        /// Everything emitted so far, and forgets it.
        func take() -> [CloudEvent] {
            entries.withLock { entries in
                defer { entries = [] }
                return entries.map(\.event)
            }
        }
    }

    let store: EmulatorStore
    let clock: ManualClock
    let recorder: Recorder
    let service: DatabaseService

    init(
        directory: URL? = nil, clock: ManualClock = ManualClock(), snapshotInterval: Int = 1000,
        triggers: [CloudFunction] = []
    ) throws {
        store = try EmulatorStore(directory: directory)
        self.clock = clock
        let recorder = Recorder()
        self.recorder = recorder
        service = try DatabaseService(
            store: store, project: "demo-project", clock: clock, emit: { recorder.record($0) },
            snapshotInterval: snapshotInterval)
        service.setTriggers(triggers.compactMap(\.eventTrigger))
    }

    var ns: String { Self.namespace }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("db-service-\(UUID().uuidString)")
    }
}

/// A handler that does nothing, for building triggers.
let noHandler: @Sendable (Change<DataSnapshot>, EventContext) async throws -> Void = { _, _ in }
let noSnapshotHandler: @Sendable (DataSnapshot, EventContext) async throws -> Void = { _, _ in }

extension CloudEvent {
    /// The event's JSON payload.
    var payload: JSONValue { (try? JSONValue(parsing: data ?? Data())) ?? .null }

    /// The `Change<DataSnapshot>` a function would receive.
    var databaseChange: Change<DataSnapshot> {
        Change(data: payload["data"] ?? .null, delta: payload["delta"] ?? .null, path: self[attribute: "ref"] ?? "")
    }
}
