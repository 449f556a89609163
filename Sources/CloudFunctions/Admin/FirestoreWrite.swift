/// One write of a batch or a transaction.
public enum FirestoreWrite: Sendable, Hashable {
    /// The whole document, or with `merge` only the fields given.
    case set(String, [String: FirestoreValue], merge: Bool)
    /// A new document; fails when it exists.
    case create(String, [String: FirestoreValue])
    /// The fields at these field paths of an existing document.
    case update(String, [String: FirestoreValue])
    /// No document.
    case delete(String)

    /// The document's path.
    public var path: String {
        switch self {
        case .set(let path, _, _), .create(let path, _), .update(let path, _), .delete(let path): path
        }
    }
}
