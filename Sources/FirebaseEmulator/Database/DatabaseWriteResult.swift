import CloudFunctions
import Foundation

/// What a Realtime Database write answers with.
public struct DatabaseWriteResult: Sendable, Hashable {
    /// The location written: the request's path, or for a push the new child's path.
    public var path: DatabasePath
    /// The body the REST API echoes: the written value with server values resolved (rendered,
    /// arrays per the read rule); for an update, the written keys as given with their values;
    /// `null` for a delete.
    public var value: JSONValue
    /// The value at ``path`` after the write, in storage form (the ETag is computed from it).
    let storedValue: JSONValue

    /// Creates a result.
    init(path: DatabasePath, value: JSONValue, storedValue: JSONValue) {
        self.path = path
        self.value = value
        self.storedValue = storedValue
    }

    /// The ETag of the data at ``path`` right after the write (computed on first use).
    public var etag: String { DatabaseETag.etag(of: storedValue) }

    /// The key of the written location: for a push, the new id (the REST `{"name": ...}`).
    public var name: String? { path.key }
}
