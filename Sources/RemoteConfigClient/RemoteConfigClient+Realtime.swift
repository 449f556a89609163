import Foundation
import Synchronization

extension RemoteConfigClient {
    /// The realtime stream reconnects after this long, doubling after each failure in a row.
    static let firstReconnectDelay: TimeInterval = 1
    /// A realtime fetch tries this often to reach the announced version.
    static let realtimeFetchAttempts = 3

    /// Listens for config updates: the client follows the backend's realtime stream, and when a
    /// newer template version is announced it fetches it (skipping the cache) and calls the
    /// listeners with the keys that differ from the active config, when there are any. Stream
    /// and fetch errors reach the listeners as errors; the stream reconnects with backoff. The
    /// stream runs (and keeps the client alive) until the last registration is removed.
    @discardableResult
    public func addOnConfigUpdateListener(_ listener: @escaping RemoteConfigUpdateListener)
        -> RemoteConfigListenerRegistration
    {
        let id = realtime.withLock { realtime in
            let id = realtime.nextID
            realtime.nextID += 1
            realtime.listeners[id] = listener
            if realtime.task == nil {
                realtime.task = Task { [weak self] in await self?.followStream() }
            }
            return id
        }
        return RemoteConfigListenerRegistration(client: self, id: id)
    }

    func removeListener(_ id: UInt64) {
        let task = realtime.withLock { realtime -> Task<Void, Never>? in
            realtime.listeners[id] = nil
            guard realtime.listeners.isEmpty else { return nil }
            defer { realtime.task = nil }
            return realtime.task
        }
        task?.cancel()
    }

    private func notify(_ result: Result<RemoteConfigUpdate, RemoteConfigError>) {
        for listener in realtime.withLock({ Array($0.listeners.values) }) { listener(result) }
    }

    private func followStream() async {
        var delay = Self.firstReconnectDelay
        while !Task.isCancelled {
            do {
                let stream = RemoteConfigRealtimeStream(client: self, lastKnownVersion: fetchedTemplateVersion)
                for try await version in stream.versions() {
                    delay = Self.firstReconnectDelay
                    if version > fetchedTemplateVersion { await fetchAnnounced(version) }
                }
            } catch is CancellationError {
                return
            } catch let error as RemoteConfigError {
                if Task.isCancelled { return }
                notify(.failure(error))
            } catch {
                if Task.isCancelled { return }
                notify(.failure(.transport("\(error)")))
            }
            do {
                try await clock.sleep(seconds: delay * (0.5 + random()))
            } catch {
                return
            }
            delay = min(delay * 2, 60)
        }
    }

    /// Fetches until the announced version arrives (a few attempts), then tells the listeners
    /// which keys differ from the active config.
    private func fetchAnnounced(_ version: Int64) async {
        var lastError: RemoteConfigError?
        for _ in 0..<Self.realtimeFetchAttempts where fetchedTemplateVersion < version {
            do {
                _ = try await fetch(expiration: 0, realtime: true)
            } catch let error as RemoteConfigError {
                lastError = error
            } catch {
                lastError = .transport("\(error)")
            }
        }
        guard fetchedTemplateVersion >= version else {
            notify(.failure(lastError ?? .transport("version \(version) was announced but not fetched")))
            return
        }
        let (keys, fetchedVersion) = state.withLock { state in
            let keys = Set(state.fetched.keys).union(state.active.keys).filter { state.fetched[$0] != state.active[$0] }
            return (keys, state.fetchedVersion)
        }
        if !keys.isEmpty { notify(.success(RemoteConfigUpdate(updatedKeys: keys, templateVersion: fetchedVersion))) }
    }
}
