import CloudEvents
import CloudFunctions
import Foundation
import Synchronization

extension RemoteConfigService {
    /// Evaluates the current template for a device (`POST .../namespaces/{namespace}:fetch`).
    ///
    /// Conditions see the instance and the clock's time; `percent` conditions hash the installation
    /// ID. The answer is `NO_TEMPLATE` when the namespace never published (any namespace
    /// name is accepted), `NO_CHANGE` when `ifNoneMatch` is the ETag this instance would get now,
    /// `EMPTY_CONFIG` when no parameter resolves to a value, else `UPDATE` with the values.
    ///
    /// - Parameters:
    ///   - instance: what the device sent about itself; unknown fields make conditions false.
    ///   - ifNoneMatch: the `ETag` of the device's last fetch answer, if any.
    /// - Returns: the answer and its ETag.
    /// - Throws: 429 `RESOURCE_EXHAUSTED` `[THROTTLED]: ...` only when a ``RemoteConfigFetchLimit``
    ///   is set and this instance is over it.
    public func fetch(
        project: String? = nil,
        namespace: RemoteConfigNamespace = .firebase,
        instance: RemoteConfigAppInstance,
        ifNoneMatch: String? = nil
    ) throws(ServiceError) -> RemoteConfigFetchResponse {
        let key = Key(project: project ?? self.project, namespace: namespace)
        let now = clock.now
        try admitFetch(key: key, instance: instance, at: now)
        let template = currentTemplate(key)
        let version = template.versionNumber
        guard version > 0 else {
            let etag = RemoteConfigETag.fetch(
                project: key.project, namespace: namespace, version: 0, entries: [:])
            return RemoteConfigFetchResponse(state: .noTemplate, entries: [:], templateVersion: "0", etag: etag)
        }
        let entries = template.evaluate(for: instance, at: now)
        let etag = RemoteConfigETag.fetch(
            project: key.project, namespace: namespace, version: version, entries: entries)
        let state: RemoteConfigFetchResponse.State =
            if ifNoneMatch == etag { .noChange } else if entries.isEmpty { .emptyConfig } else { .update }
        return RemoteConfigFetchResponse(
            state: state, entries: state == .update ? entries : [:], templateVersion: String(version), etag: etag)
    }

    /// Sets or clears (`nil`) the per-instance fetch rate limit; fetch history is kept.
    public func setFetchLimit(_ limit: RemoteConfigFetchLimit?) {
        state.withLock { $0.fetchLimit = limit }
    }

    /// Records a fetch against the rate limit, if one is set.
    private func admitFetch(key: Key, instance: RemoteConfigAppInstance, at now: Date) throws(ServiceError) {
        let bucket = key.project + "\u{0}" + key.namespace.rawValue + "\u{0}" + (instance.installationID ?? "")
        let retryAt = state.withLock { state -> (limit: RemoteConfigFetchLimit, date: Date)? in
            guard let limit = state.fetchLimit else { return nil }
            var history = state.fetchHistory[bucket] ?? []
            let retryAt = limit.admit(at: now, history: &history)
            state.fetchHistory[bucket] = history.isEmpty ? nil : history
            return retryAt.map { (limit, $0) }
        }
        guard let retryAt else { return }
        throw ServiceError(.resourceExhausted, 
            "[THROTTLED]: Too many fetches from app instance '\(instance.installationID ?? "")': the limit is "
                + "\(retryAt.limit.count) per \(Int(retryAt.limit.windowSeconds.rounded(.up))) seconds. "
                + "Retry after \(RFC3339Timestamp.millisecondString(from: retryAt.date))",
            details: ["throttleEndTime": .string(RFC3339Timestamp.millisecondString(from: retryAt.date))])
    }
}
