import CloudEvents
import CloudFunctions
import Foundation
import Synchronization

/// The emulated Remote Config backend: versioned templates per project and namespace, the Admin
/// template API, client fetch evaluation and version notifications for realtime.
///
/// Every version is stored in the ``EmulatorStore``; the last 300 per namespace are kept. Publishing
/// or rolling back the `firebase` (client) template emits
/// `google.firebase.remoteconfig.remoteConfig.v1.updated` in the same transaction. The current
/// template of each namespace is cached in memory for fetches, updated only after a commit.
///
/// Methods take an optional `project`: `nil` means the project the service was created for.
public final class RemoteConfigService: Sendable {
    /// A namespace of a project.
    struct Key: Hashable, Sendable {
        var project: String
        var namespace: RemoteConfigNamespace
    }

    struct Subscriber: Sendable {
        var key: Key
        var continuation: AsyncStream<Int64>.Continuation
    }

    struct State: Sendable {
        var current: [Key: RemoteConfigTemplate]
        var fetchLimit: RemoteConfigFetchLimit?
        var fetchHistory: [String: [Date]] = [:]
        var subscribers: [UInt64: Subscriber] = [:]
        var nextSubscriberID: UInt64 = 0
        var isShutDown = false
    }

    /// Who publishes when a call names nobody: all three fields present, as event consumers need.
    public static let defaultUser = RemoteConfigUser(name: "Emulator", email: "emulator@example.com", imageUrl: "")

    let store: EmulatorStore
    /// The project used when a call passes `project: nil`.
    public let project: String
    let clock: any BusClock
    let emit: @Sendable ([OutboxEntry]) -> Void
    let state: Mutex<State>

    /// Creates the service and loads the current template of every namespace from the store.
    ///
    /// - Parameters:
    ///   - store: where versions are kept.
    ///   - project: the default project ID.
    ///   - clock: the source of `updateTime` and of the fetch time conditions see.
    ///   - emit: called after each committed publish or rollback with the outbox entries it added.
    ///   - fetchLimit: a per-instance fetch rate limit; `nil` (the default) never throttles.
    /// - Throws: a database error when the store cannot be read.
    package init(
        store: EmulatorStore,
        project: String,
        clock: any BusClock,
        emit: @escaping @Sendable ([OutboxEntry]) -> Void,
        fetchLimit: RemoteConfigFetchLimit? = nil
    ) throws {
        self.store = store
        self.project = project
        self.clock = clock
        self.emit = emit
        let current = try store.read { db in try RemoteConfigVersionTable.currentTemplates(db) }
        state = Mutex(State(current: current, fetchLimit: fetchLimit))
    }

    /// The current template of a namespace and its ETag (`GET .../remoteConfig`).
    ///
    /// A namespace that never published answers the empty template, version 0, with an ETag.
    ///
    /// - Throws: `INVALID_ARGUMENT` for a namespace other than `firebase` and `firebase-server`.
    public func template(project: String? = nil, namespace: RemoteConfigNamespace = .firebase)
        throws(ServiceError) -> RemoteConfigTemplateResponse
    {
        try namespace.requireManaged()
        let key = Key(project: project ?? self.project, namespace: namespace)
        let template = currentTemplate(key)
        return RemoteConfigTemplateResponse(
            template: template,
            etag: RemoteConfigETag.template(project: key.project, versionNumber: template.versionNumber)
        )
    }

    /// The newest version number of a namespace, 0 when it never published.
    public func latestVersion(project: String? = nil, namespace: RemoteConfigNamespace = .firebase) -> Int64 {
        currentTemplate(Key(project: project ?? self.project, namespace: namespace)).versionNumber
    }

    /// Renders the current template's default values (`GET .../remoteConfig:downloadDefaults`).
    ///
    /// - Throws: `INVALID_ARGUMENT` for an unmanaged namespace.
    public func downloadDefaults(
        format: RemoteConfigDefaultsFormat, project: String? = nil, namespace: RemoteConfigNamespace = .firebase
    ) throws(ServiceError) -> String {
        try template(project: project, namespace: namespace).template.renderDefaults(as: format)
    }

    func currentTemplate(_ key: Key) -> RemoteConfigTemplate {
        state.withLock { $0.current[key] } ?? .empty
    }

    /// Runs a store operation, passing `ServiceError`s through and reporting anything else as
    /// `INTERNAL` (a database failure; nothing was written).
    static func storeOperation<T>(_ body: () throws -> T) throws(ServiceError) -> T {
        do {
            return try body()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(.internal, "Internal error: \(error)")
        }
    }

    /// Runs a store operation, passing `ServiceError`s through and reporting anything else as
    /// `INTERNAL` (a database failure; nothing was written).
    static func storeOperation<T>(_ body: () async throws -> T) async throws(ServiceError) -> T {
        do {
            return try await body()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(.internal, "Internal error: \(error)")
        }
    }
}
