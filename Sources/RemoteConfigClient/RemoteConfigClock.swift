import Foundation

/// The client's time: the system's, or a manual one in tests.
public protocol RemoteConfigClock: Sendable {
    /// The current time.
    var now: Date { get }
    /// Waits `seconds` (realtime reconnection backoff).
    func sleep(seconds: TimeInterval) async throws
}

/// The system clock.
public struct SystemRemoteConfigClock: RemoteConfigClock {
    /// Creates the clock.
    public init() {}

    public var now: Date { Date() }

    public func sleep(seconds: TimeInterval) async throws {
        try await Task.sleep(for: .seconds(seconds))
    }
}
