import Foundation

/// The client's settings, as `RemoteConfigSettings` in the SDKs.
public struct RemoteConfigSettings: Sendable, Hashable {
    /// Fetches within this long after a successful one are served from the cache (default 12 hours).
    public var minimumFetchInterval: TimeInterval
    /// How long a fetch waits for the backend (default 60 s).
    public var fetchTimeout: TimeInterval

    /// The SDK defaults: 12 hours and 60 seconds.
    public init(minimumFetchInterval: TimeInterval = 43_200, fetchTimeout: TimeInterval = 60) {
        self.minimumFetchInterval = minimumFetchInterval
        self.fetchTimeout = fetchTimeout
    }
}
