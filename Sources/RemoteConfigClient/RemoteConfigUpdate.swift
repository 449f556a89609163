/// What a realtime listener hears: the keys whose fetched values differ from the active ones
/// (added, removed or changed). Call ``RemoteConfigClient/activate()`` to use them.
public struct RemoteConfigUpdate: Sendable, Hashable {
    /// The keys that changed.
    public var updatedKeys: Set<String>
    /// The template version now fetched.
    public var templateVersion: Int64
}

/// A realtime listener's registration; ``remove()`` stops it (and the stream, with the last one).
public struct RemoteConfigListenerRegistration: Sendable {
    let client: RemoteConfigClient
    let id: UInt64

    /// Removes the listener.
    public func remove() {
        client.removeListener(id)
    }
}

/// A realtime listener: an update with changed keys, or an error of the stream or its fetch.
public typealias RemoteConfigUpdateListener = @Sendable (Result<RemoteConfigUpdate, RemoteConfigError>) -> Void

/// The listeners and the stream task of a client.
struct RealtimeState: Sendable {
    var listeners: [UInt64: RemoteConfigUpdateListener] = [:]
    var nextID: UInt64 = 0
    var task: Task<Void, Never>?
}
