import CloudFunctions
import Foundation
import Synchronization

extension RemoteConfigService {
    /// The version numbers a namespace publishes from now on, for realtime listeners.
    ///
    /// The stream first yields the current version when it is newer than `after`, then each newly
    /// published version. It keeps only the newest undelivered number: a slow consumer skips
    /// intermediate versions, which is all a realtime client needs ("a version newer than N
    /// exists"). It ends when ``shutdown()`` is called; it is removed when the consumer stops
    /// iterating (its task is cancelled or the stream is dropped).
    ///
    /// - Parameter after: the version the listener already has (0 for none).
    public func versions(
        project: String? = nil, namespace: RemoteConfigNamespace = .firebase, after: Int64 = 0
    ) -> AsyncStream<Int64> {
        let key = Key(project: project ?? self.project, namespace: namespace)
        let (stream, continuation) = AsyncStream<Int64>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let registered = state.withLock { state -> UInt64? in
            guard !state.isShutDown else { return nil }
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.subscribers[id] = Subscriber(key: key, continuation: continuation)
            let current = state.current[key]?.versionNumber ?? 0
            if current > after { continuation.yield(current) }
            return id
        }
        guard let id = registered else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many version streams are open (diagnostics).
    public var versionStreamCount: Int {
        state.withLock { $0.subscribers.count }
    }

    /// Ends every version stream; later ``versions(project:namespace:after:)`` streams end at once.
    /// Templates can still be read and published.
    public func shutdown() {
        let continuations = state.withLock { state in
            state.isShutDown = true
            defer { state.subscribers.removeAll() }
            return state.subscribers.values.map(\.continuation)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// Updates the cache with a committed version and wakes the streams of its namespace.
    func didPublish(_ template: RemoteConfigTemplate, key: Key) {
        state.withLock { state in
            guard template.versionNumber > state.current[key]?.versionNumber ?? 0 else { return }
            state.current[key] = template
            for subscriber in state.subscribers.values where subscriber.key == key {
                subscriber.continuation.yield(template.versionNumber)
            }
        }
    }
}
