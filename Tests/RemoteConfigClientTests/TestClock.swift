import Foundation
import RemoteConfigClient
import Synchronization

/// A clock that moves only when told to; its sleeps return at once and are recorded.
final class TestClock: RemoteConfigClock {
    private let state = Mutex((now: Date(timeIntervalSince1970: 1_800_000_000), sleeps: [TimeInterval]()))

    var now: Date { state.withLock { $0.now } }

    /// The sleeps asked for so far.
    var sleeps: [TimeInterval] { state.withLock { $0.sleeps } }

    func advance(by seconds: TimeInterval) {
        state.withLock { $0.now += seconds }
    }

    func sleep(seconds: TimeInterval) async throws {
        state.withLock { $0.sleeps.append(seconds) }
        await Task.yield()
        try Task.checkCancellation()
    }
}
