import CloudEvents
import CloudFunctions

/// The `context.database` of functions running in process against the emulator.
///
/// Writes made while handling an event carry the chain depth of that event plus one, so a
/// function that keeps writing where it listens is stopped after
/// ``DatabaseService/maximumChainDepth`` steps instead of looping for ever.
package struct EmulatorDatabaseClient: DatabaseClient {
    let service: DatabaseService
    let namespace: String
    let chainDepth: Int

    /// Creates a client for one database instance.
    public init(service: DatabaseService, namespace: String) {
        self.init(service: service, namespace: namespace, chainDepth: 0)
    }

    init(service: DatabaseService, namespace: String, chainDepth: Int) {
        self.service = service
        self.namespace = namespace
        self.chainDepth = chainDepth
    }

    public func handling(_ event: CloudEvent) -> any DatabaseClient {
        return EmulatorDatabaseClient(service: service, namespace: namespace, chainDepth: event.chainDepth + 1)
    }

    public func get(_ path: String) async throws -> JSONValue {
        try service.get(namespace: namespace, path: path)
    }

    public func set(_ path: String, _ value: JSONValue) async throws {
        _ = try await service.write(DatabaseWrite(.set(value),
            namespace: namespace, path: path, chainDepth: chainDepth))
    }

    public func update(_ path: String, _ values: [String: JSONValue]) async throws {
        _ = try await service.write(DatabaseWrite(.update(.object(values)),
            namespace: namespace, path: path, chainDepth: chainDepth))
    }

    public func push(_ path: String, _ value: JSONValue) async throws -> String {
        try await service.write(DatabaseWrite(.push(value),
            namespace: namespace, path: path, chainDepth: chainDepth)).name ?? ""
    }

    public func delete(_ path: String) async throws {
        _ = try await service.write(DatabaseWrite(.delete, namespace: namespace, path: path, chainDepth: chainDepth))
    }

    public func getVersioned(_ path: String) async throws -> VersionedValue {
        let read = try service.getWithETag(namespace: namespace, path: path)
        return VersionedValue(value: read.value, etag: read.etag)
    }

    public func set(_ path: String, _ value: JSONValue, ifMatch etag: String) async throws -> VersionedValue? {
        do {
            _ = try await service.write(DatabaseWrite(.set(value),
                namespace: namespace, path: path, ifMatch: etag, chainDepth: chainDepth))
            return nil
        } catch {
            guard let serviceError = error as? ServiceError, let failure = DatabasePreconditionFailure(serviceError)
            else { throw error }
            return VersionedValue(value: failure.value, etag: failure.etag)
        }
    }
}
