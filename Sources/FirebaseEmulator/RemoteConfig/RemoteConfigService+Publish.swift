import CloudEvents
import CloudFunctions
import Foundation
import GRDB

extension RemoteConfigService {
    /// Publishes a template (`PUT .../remoteConfig`).
    ///
    /// The new version is the current one + 1, with `updateTime` from the clock (milliseconds),
    /// `updateUser`, `updateOrigin`, the request's `version.description` and `updateType`
    /// `INCREMENTAL_UPDATE` (matching ETag) or `FORCED_UPDATE` (`If-Match: *`). Every other field of
    /// the request's `version` is output only and ignored. Versions beyond the last 300 are deleted.
    ///
    /// - Parameters:
    ///   - template: the new content.
    ///   - ifMatch: the `If-Match` header: the current ETag, or `*` to publish unconditionally.
    ///   - validateOnly: check only: nothing is stored or emitted, and the answer is the template
    ///     (without version number) with the current ETag suffixed `-0`.
    ///   - user: the publisher; missing fields become empty strings (default ``defaultUser``).
    ///   - origin: where the update comes from (default `REST_API`).
    /// - Returns: the published template and its ETag.
    /// - Throws: `INVALID_ARGUMENT` `[VALIDATION_ERROR]: ...` for an invalid template (checked
    ///   first), then 412 `FAILED_PRECONDITION` `[VERSION_MISMATCH]: ...` when `ifMatch` is missing
    ///   or names another version.
    @discardableResult
    public func publish(
        _ template: RemoteConfigTemplate,
        project: String? = nil,
        namespace: RemoteConfigNamespace = .firebase,
        ifMatch: String?,
        validateOnly: Bool = false,
        user: RemoteConfigUser? = nil,
        origin: TemplateVersion.UpdateOrigin = .restAPI
    ) async throws(ServiceError) -> RemoteConfigTemplateResponse {
        try namespace.requireManaged()
        let key = Key(project: project ?? self.project, namespace: namespace)
        let description = template.version?.description
        let content = template.withVersion(description.map { TemplateVersion(versionNumber: 0, description: $0) })
        try content.validate()
        if validateOnly {
            let current = try Self.storeOperation {
                try store.read { db in
                    try RemoteConfigVersionTable.latestNumber(db, project: key.project, namespace: namespace)
                }
            }
            _ = try Self.updateType(ifMatch: ifMatch, current: current, project: key.project)
            let etag = RemoteConfigETag.template(project: key.project, versionNumber: current)
            return RemoteConfigTemplateResponse(template: content, etag: RemoteConfigETag.validateOnly(etag))
        }
        return try await commit(key, user: user, origin: origin) { _, current throws(ServiceError) in
            let type = try Self.updateType(ifMatch: ifMatch, current: current, project: key.project)
            return Draft(content: content, updateType: type, description: description)
        }
    }

    /// Rolls back to an earlier version (`POST .../remoteConfig:rollback`): publishes a **new**
    /// version with that version's content and description, `updateType` `ROLLBACK` and
    /// `rollbackSource` = `versionNumber`. Rolling back to the current version is allowed (it
    /// publishes an identical copy), as is rolling back to a rollback.
    ///
    /// - Returns: the new template and its ETag.
    /// - Throws: `INVALID_ARGUMENT` for a number below 1; `NOT_FOUND` for a version that was never
    ///   published or is no longer kept.
    @discardableResult
    public func rollback(
        to versionNumber: Int64,
        project: String? = nil,
        namespace: RemoteConfigNamespace = .firebase,
        user: RemoteConfigUser? = nil,
        origin: TemplateVersion.UpdateOrigin = .restAPI
    ) async throws(ServiceError) -> RemoteConfigTemplateResponse {
        try namespace.requireManaged()
        try Self.requirePositive(versionNumber, name: "versionNumber")
        let key = Key(project: project ?? self.project, namespace: namespace)
        return try await commit(key, user: user, origin: origin) { db, _ throws(ServiceError) in
            let source = try Self.storeOperation {
                try RemoteConfigVersionTable.template(
                    db, project: key.project, namespace: namespace, versionNumber: versionNumber)
            }
            guard let source else { throw Self.versionNotFound(versionNumber) }
            return Draft(
                content: source.withVersion(nil), updateType: .rollback, description: source.version?.description,
                rollbackSource: versionNumber)
        }
    }

    /// What a publish or rollback is about to store, before its version number is known.
    struct Draft {
        var content: RemoteConfigTemplate
        var updateType: TemplateVersion.UpdateType
        var description: String?
        var rollbackSource: Int64?
    }

    /// Stores version current + 1 of `key` and its event in one transaction, then updates the cache,
    /// wakes the version streams and hands the event to `emit`.
    private func commit(
        _ key: Key,
        user: RemoteConfigUser?,
        origin: TemplateVersion.UpdateOrigin,
        draft: @escaping @Sendable (GRDB.Database, Int64) throws(ServiceError) -> Draft
    ) async throws(ServiceError) -> RemoteConfigTemplateResponse {
        let now = Self.wireTime(clock.now)
        let user = (user ?? Self.defaultUser).completed
        let (published, entries) = try await Self.storeOperation {
            try await store.write { transaction in
                let db = transaction.db
                let current = try RemoteConfigVersionTable.latestNumber(
                    db, project: key.project, namespace: key.namespace)
                let draft = try draft(db, current)
                let version = TemplateVersion(
                    versionNumber: current + 1, updateTime: now, updateUser: user, description: draft.description,
                    updateOrigin: origin, updateType: draft.updateType, rollbackSource: draft.rollbackSource)
                let published = draft.content.withVersion(version)
                try RemoteConfigVersionTable.insert(
                    db, project: key.project, namespace: key.namespace, template: published)
                if key.namespace.emitsEvents {
                    try transaction.emit(Self.updatedEvent(version, project: key.project, time: now))
                }
                return published
            }
        }
        didPublish(published, key: key)
        emit(entries)
        return RemoteConfigTemplateResponse(
            template: published,
            etag: RemoteConfigETag.template(project: key.project, versionNumber: published.versionNumber))
    }

    /// The `remoteConfig.v1.updated` event of a new version.
    static func updatedEvent(_ version: TemplateVersion, project: String, time: Date) -> CloudEvent {
        CloudEvent.remoteConfigUpdated(version, project: project, time: time)
    }

    /// The time as the API writes it (UTC, milliseconds), so what is returned equals what is read back.
    static func wireTime(_ date: Date) -> Date {
        RFC3339Timestamp.date(from: RFC3339Timestamp.millisecondString(from: date)) ?? date
    }
}
