import CloudFunctions
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RemoteConfigClient {
    /// The first backoff after a failed fetch; it doubles with each failure in a row.
    static let firstBackoff: TimeInterval = 120
    /// The longest backoff.
    static let longestBackoff: TimeInterval = 4 * 3600

    /// Fetches with the minimum fetch interval of ``settings``.
    ///
    /// - Returns: `.success`, from the cache when the last successful fetch is recent enough.
    /// - Throws: ``RemoteConfigError/throttled(until:)`` while backing off; the fetch's error otherwise.
    @discardableResult
    public func fetch() async throws -> RemoteConfigFetchStatus {
        try await fetch(withExpirationDuration: settings.minimumFetchInterval)
    }

    /// Fetches unless the last successful fetch is younger than `expiration` seconds; a stale
    /// config (see ``handleRemoteMessage(data:)``) is fetched whatever the expiration.
    @discardableResult
    public func fetch(withExpirationDuration expiration: TimeInterval) async throws -> RemoteConfigFetchStatus {
        try await fetch(expiration: expiration).status
    }

    /// Fetches (with the minimum fetch interval) and activates, as the SDKs'
    /// `fetchAndActivate(completionHandler:)`: a failed or throttled fetch is the status
    /// `.error` (the reason in ``lastFetchError``), and the active config stays as it was.
    @discardableResult
    public func fetchAndActivate() async -> RemoteConfigFetchAndActivateStatus {
        let fromCache: Bool
        do {
            fromCache = try await fetch(expiration: settings.minimumFetchInterval).fromCache
        } catch {
            fetchError.withLock { $0 = error }
            return .error
        }
        fetchError.withLock { $0 = nil }
        activate()
        return fromCache ? .successUsingPreFetchedData : .successFetchedFromRemote
    }

    /// A fetch: from the cache while the last successful one is younger than the interval (as
    /// the SDKs check first, whatever failed since), else from the backend unless backing off.
    func fetch(expiration: TimeInterval, realtime: Bool = false) async throws
        -> (status: RemoteConfigFetchStatus, fromCache: Bool)
    {
        let now = clock.now
        enum Decision { case cache, throttled(Date), network(etag: String?, pings: UInt64, fetch: UInt64) }
        let decision: Decision = update { state in
            let expiration = state.isStale || realtime ? 0 : expiration
            if let last = state.lastFetchTime, now.timeIntervalSince(last) < expiration {
                state.lastFetchStatus = .success
                return .cache
            }
            if let until = state.backoffUntil, now < until {
                state.lastFetchStatus = .throttled
                return .throttled(until)
            }
            return .network(etag: state.fetchedETag, pings: pings.load(ordering: .relaxed),
                fetch: fetchesSent.add(1, ordering: .relaxed).newValue)
        }
        switch decision {
        case .cache:
            return (.success, true)
        case .throttled(let until):
            throw RemoteConfigError.throttled(until: until)
        case .network(let etag, let pings, let fetch):
            try await fetchFromBackend(etag: etag, realtime: realtime, pingsAtStart: pings, fetch: fetch)
            return (.success, false)
        }
    }

    /// Fetches from the backend. A `CONFIG_STATE` message that came while the fetch was on its
    /// way (`pings` moved past `pingsAtStart`) may be for a newer template than the answer: the
    /// config stays stale. The answer to a fetch sent before one whose answer was applied already
    /// (two fetches crossing) leaves the fetched config as it is.
    private func fetchFromBackend(etag: String?, realtime: Bool, pingsAtStart: UInt64, fetch: UInt64) async throws {
        let answer: RemoteConfigFetchResponse
        do {
            answer = try await send(etag: etag, realtime: realtime)
        } catch let error as RemoteConfigError {
            recordFailure(error)
            throw error
        }
        update { state in
            if fetch > fetchApplied.load(ordering: .relaxed) {
                fetchApplied.store(fetch, ordering: .relaxed)
                switch answer.state {
                case .update: state.fetched = answer.entries
                case .noChange: break
                case .emptyConfig, .noTemplate: state.fetched = [:]
                }
                state.fetchedVersion = Int64(answer.templateVersion) ?? state.fetchedVersion
                if !answer.etag.isEmpty { state.fetchedETag = answer.etag }
                state.hasUnactivatedFetch = true
            }
            state.lastFetchStatus = .success
            state.lastFetchTime = clock.now
            if pings.load(ordering: .relaxed) == pingsAtStart { state.isStale = false }
            state.failures = 0
            state.backoffUntil = nil
        }
    }

    /// A failed fetch: 429 and 5xx answers start (or lengthen) the backoff.
    private func recordFailure(_ error: RemoteConfigError) {
        let now = clock.now
        let jitter = random()
        update { state in
            state.lastFetchStatus = .failure
            guard case .fetchFailed(let status, _) = error, status == 429 || (500...599).contains(status) else {
                return
            }
            state.failures += 1
            let base = min(Self.firstBackoff * pow(2, Double(state.failures - 1)), Self.longestBackoff)
            state.backoffUntil = now.addingTimeInterval(base * (0.5 + jitter))
        }
    }

    private func send(etag: String?, realtime: Bool) async throws -> RemoteConfigFetchResponse {
        var components = URLComponents(url: backend, resolvingAgainstBaseURL: false)!
        components.path += "/v1/projects/\(project)/namespaces/firebase:fetch"
        components.queryItems = [URLQueryItem(name: "key", value: apiKey)]
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        request.timeoutInterval = settings.fetchTimeout
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(realtime ? "REALTIME/1" : "BASE/1", forHTTPHeaderField: "X-Firebase-RC-Fetch-Type")
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        request.httpBody = try? JSONEncoder().encode(installation.fetchRequest)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw RemoteConfigError.transport(error.localizedDescription)
        }
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        guard status == 200 else {
            let message = (try? JSONValue(parsing: data))?["error"]?["message"]?.stringValue
                ?? String(decoding: data.prefix(300), as: UTF8.self)
            throw RemoteConfigError.fetchFailed(status: status, message: message)
        }
        do {
            var answer = try JSONDecoder().decode(RemoteConfigFetchResponse.self, from: data)
            answer.etag = http?.value(forHTTPHeaderField: "ETag") ?? ""
            return answer
        } catch {
            let text = String(decoding: data.prefix(300), as: UTF8.self)
            throw RemoteConfigError.transport("the answer is not a fetch answer (\(error)): \(text)")
        }
    }
}
