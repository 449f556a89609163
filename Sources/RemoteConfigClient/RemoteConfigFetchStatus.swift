/// The outcome of the last fetch, as `lastFetchStatus` reports it.
public enum RemoteConfigFetchStatus: String, Sendable, Hashable, Codable {
    /// No fetch has been made.
    case noFetchYet
    /// The last fetch succeeded (from the backend or the cache).
    case success
    /// The last fetch failed.
    case failure
    /// The last fetch was refused because the client is backing off.
    case throttled
}

/// The outcome of ``RemoteConfigClient/fetchAndActivate()``.
public enum RemoteConfigFetchAndActivateStatus: String, Sendable, Hashable {
    /// Fetched from the backend and activated.
    case successFetchedFromRemote
    /// Served from the cache (inside the fetch interval) and activated.
    case successUsingPreFetchedData
    /// The fetch failed or was throttled; nothing was activated (see
    /// ``RemoteConfigClient/lastFetchError``).
    case error
}
