import Foundation

/// A Firestore document as a write found or left it: its path, whether it exists, its fields
/// and its times. A document that does not exist (before a create, after a delete) has no
/// fields.
public struct DocumentSnapshot: Sendable, Hashable {
    /// The document's path in its database, e.g. `gameScores/s1`.
    public var path: String
    /// Whether the document exists.
    public var exists: Bool
    /// The fields, empty when the document does not exist.
    public var fields: [String: FirestoreValue]
    /// When the document was created; `nil` when it does not exist.
    public var createTime: Date?
    /// When the document was last written; `nil` when it does not exist.
    public var updateTime: Date?

    /// Creates a snapshot.
    public init(
        path: String, exists: Bool = true, fields: [String: FirestoreValue] = [:], createTime: Date? = nil,
        updateTime: Date? = nil
    ) {
        self.path = path
        self.exists = exists
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    /// A snapshot of a document that does not exist.
    public static func missing(path: String) -> DocumentSnapshot {
        DocumentSnapshot(path: path, exists: false)
    }

    /// The document's id: the last segment of its path.
    public var id: String { path.split(separator: "/").last.map(String.init) ?? "" }

    /// The field at a dotted path (`"address.city"`); `nil` when it is missing.
    public subscript(fieldPath: String) -> FirestoreValue? {
        FirestoreValue.map(fields)[fieldPath: fieldPath]
    }

    /// The fields decoded as `T`: integers and doubles as numbers, timestamps as `Date`, bytes
    /// as `Data`, references as their resource names, geo points as ``FirestoreGeoPoint`` (or
    /// any `{latitude, longitude}` type), maps and arrays as nested values.
    ///
    /// - Throws: `DecodingError` when the fields do not fit `T`.
    public func data<T: Decodable>(as type: T.Type) throws -> T {
        try FirestoreValue.map(fields).decode(as: type)
    }
}
