import CloudEvents

/// Reads and writes the Realtime Database, like the Admin SDK's `database()`.
///
/// Paths are relative to the database root (`users/abc`). Writes made through a handler's
/// `context.database` may trigger further functions.
public protocol DatabaseClient: Sendable {
    /// The value at a path; `.null` when there is none.
    func get(_ path: String) async throws -> JSONValue
    /// Replaces the value at a path; `.null` deletes it.
    func set(_ path: String, _ value: JSONValue) async throws
    /// Sets the given children (keys may be multi-segment paths); `.null` values delete.
    func update(_ path: String, _ values: [String: JSONValue]) async throws
    /// Adds a child with a new chronological push id and returns the id.
    func push(_ path: String, _ value: JSONValue) async throws -> String
    /// Deletes the value at a path.
    func delete(_ path: String) async throws
    /// The value at a path with its ETag, for a conditional write.
    func getVersioned(_ path: String) async throws -> VersionedValue
    /// Replaces the value at a path only if its ETag is still `etag`.
    ///
    /// - Returns: `nil` when written; the current value and ETag when it changed meanwhile.
    func set(_ path: String, _ value: JSONValue, ifMatch etag: String) async throws -> VersionedValue?
    /// The client to use while handling `event`: lets the backend tell writes made by
    /// functions apart (to stop runaway trigger loops). The default is the client itself.
    func handling(_ event: CloudEvent) -> any DatabaseClient
    /// Runs the reads and writes of one transaction at `path`, which a backend may mark as one
    /// unit (a span, say). The default runs `body` as it is.
    func withinTransaction<T: Sendable>(at path: String, _ body: () async throws -> T) async throws -> T
}

/// A database value with the ETag it had when it was read.
public struct VersionedValue: Sendable, Hashable {
    /// The value; `.null` when there is none.
    public var value: JSONValue
    /// The location's ETag.
    public var etag: String

    /// Creates a versioned value.
    public init(value: JSONValue, etag: String) {
        self.value = value
        self.etag = etag
    }
}

extension DatabaseClient {
    public func handling(_ event: CloudEvent) -> any DatabaseClient { self }

    public func withinTransaction<T: Sendable>(at path: String, _ body: () async throws -> T) async throws -> T {
        try await body()
    }

    /// A reference to a path.
    public func ref(_ path: String = "") -> DatabaseReference {
        DatabaseReference(client: self, path: path)
    }
}

/// A location in the Realtime Database.
public struct DatabaseReference: Sendable {
    let client: any DatabaseClient
    /// The path, without leading or trailing slashes.
    public let path: String
    /// Set when the path was built with an empty segment (`users/` from `"users/\(uid)"` with an
    /// empty `uid`, or `a//b`): every operation then fails instead of acting on the parent.
    private let emptySegment: String?

    init(client: any DatabaseClient, path: String, emptyChild: Bool = false) {
        self.client = client
        let relative = path.hasPrefix("/") ? String(path.dropFirst()) : path
        self.emptySegment = DataSnapshot.hasStraySlash(relative) || emptyChild ? path : nil
        self.path = DataSnapshot.trim(path)
    }

    private func checkedPath() throws -> String {
        if let emptySegment { throw DatabasePathError(path: emptySegment) }
        return path
    }

    /// The last path segment, `nil` at the root.
    public var key: String? { path.split(separator: "/").last.map(String.init) }

    /// A reference to a child path.
    public func child(_ path: String) -> DatabaseReference {
        // An empty child (`ref().child(uid)` with an empty uid) is an empty segment, at the root too.
        let base = emptySegment ?? self.path
        let empty = path.isEmpty || DataSnapshot.hasStraySlash(path)
        return DatabaseReference(client: client, path: base.isEmpty ? path : base + "/" + path, emptyChild: empty)
    }

    /// Reads the value here.
    public func get() async throws -> DataSnapshot {
        DataSnapshot(try await client.get(checkedPath()), path: path)
    }

    /// Replaces the value here.
    public func set(_ value: JSONValue) async throws { try await client.set(checkedPath(), value) }

    /// Replaces the value here with an encodable value.
    public func set(encoding value: some Encodable) async throws {
        try await client.set(checkedPath(), JSONValue(encoding: value))
    }

    /// Sets the given children.
    public func update(_ values: [String: JSONValue]) async throws { try await client.update(checkedPath(), values) }

    /// Adds a child with a push id.
    @discardableResult
    public func push(_ value: JSONValue) async throws -> DatabaseReference {
        child(try await client.push(checkedPath(), value))
    }

    /// Deletes the value here.
    public func remove() async throws { try await client.delete(checkedPath()) }

    /// Changes the value here atomically, as the Admin SDKs' `transaction` does: `update` gets
    /// the current value (`.null` when there is none) and returns the new one, or `nil` to
    /// abort; when another write got there first, it runs again on the newer value.
    ///
    /// - Returns: the value written, or `nil` when `update` aborted.
    /// - Throws: ``DatabaseTransactionError`` after `maxAttempts` conflicting writes; what
    ///   `update` or the backend throws.
    @discardableResult
    public func transaction(
        maxAttempts: Int = 25,
        _ update: (JSONValue) throws -> JSONValue?
    ) async throws -> DataSnapshot? {
        let path = try checkedPath()
        return try await client.withinTransaction(at: path) {
            var current = try await client.getVersioned(path)
            for _ in 0..<maxAttempts {
                guard let value = try update(current.value) else { return nil }
                guard let newer = try await client.set(path, value, ifMatch: current.etag) else {
                    return DataSnapshot(value, path: path)
                }
                current = newer
            }
            throw DatabaseTransactionError(path: path, attempts: maxAttempts)
        }
    }
}

/// A transaction kept meeting concurrent writes and gave up.
public struct DatabaseTransactionError: Error, Sendable, CustomStringConvertible {
    /// The location.
    public var path: String
    /// How many times it tried.
    public var attempts: Int

    public var description: String {
        "the transaction at '\(path)' met a concurrent write \(attempts) times and gave up"
    }
}

/// A database path with an empty segment, such as `users/` built from `"users/\(uid)"` with an
/// empty `uid`: acting on it would act on the parent instead.
public struct DatabasePathError: Error, Sendable, CustomStringConvertible {
    /// The path as it was given.
    public var path: String

    public var description: String { "the database path '\(path)' has an empty segment" }
}
