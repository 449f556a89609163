import Foundation
import Synchronization

/// Where a client keeps what an app keeps in its preferences: defaults, the fetched and the
/// active config, fetch bookkeeping and the stale flag. A directory survives restarts (a new
/// client on the same directory is the app launched again); memory does not.
public final class RemoteConfigStore: Sendable {
    private let file: URL?
    private let memory = Mutex<Data?>(nil)

    private init(file: URL?) {
        self.file = file
    }

    /// A store that keeps nothing after the process ends.
    public static func inMemory() -> RemoteConfigStore { RemoteConfigStore(file: nil) }

    /// A store in `directory` (created if needed), in one JSON file.
    public static func directory(_ directory: URL) throws -> RemoteConfigStore {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return RemoteConfigStore(file: directory.appendingPathComponent("remote-config.json"))
    }

    func load() -> RemoteConfigState {
        let data = file.map { try? Data(contentsOf: $0) } ?? memory.withLock { $0 }
        guard let data else { return RemoteConfigState() }
        // A damaged file is an app whose preferences were wiped: it starts over.
        return (try? JSONDecoder().decode(RemoteConfigState.self, from: data)) ?? RemoteConfigState()
    }

    func save(_ state: RemoteConfigState) {
        guard let data = try? JSONEncoder().encode(state) else { return }
        if let file {
            try? data.write(to: file, options: .atomic)
        } else {
            memory.withLock { $0 = data }
        }
    }
}

/// The persisted state of one client.
struct RemoteConfigState: Codable, Sendable {
    var defaults: [String: String] = [:]
    var fetched: [String: String] = [:]
    var fetchedVersion: Int64 = 0
    var fetchedETag: String?
    var active: [String: String] = [:]
    var activeVersion: Int64 = 0
    var hasUnactivatedFetch = false
    var lastFetchStatus: RemoteConfigFetchStatus = .noFetchYet
    /// When the backend last answered a fetch successfully.
    var lastFetchTime: Date?
    /// Set by a `CONFIG_STATE` message; cleared by the next successful fetch from the backend.
    var isStale = false
    /// Failed fetches in a row (429/5xx), for the backoff.
    var failures = 0
    var backoffUntil: Date?
}
