import CloudFunctions

/// Cloud Firestore triggers: functions that run when documents are written.
///
/// ```swift
/// functions["onGameScore"] = Firestore.document("gameScores/{scoreId}").onWrite { change, context in
///     let score = try change.after.data(as: GameScore.self)
/// }
/// ```
public enum Firestore {
    /// The default database's name.
    public static let defaultDatabase = "(default)"

    /// Triggers on documents matching a path pattern (`{name}` matches one segment,
    /// `{name=**}` any number) in the default database.
    public static func document(_ path: String) -> FirestoreDocumentTrigger {
        FirestoreDocumentTrigger(database: defaultDatabase, path: path, functionOptions: FunctionOptions())
    }

    /// Selects a named database; continue with ``FirestoreDatabase/document(_:)``.
    public static func database(_ name: String) -> FirestoreDatabase {
        FirestoreDatabase(name: name)
    }
}

/// A named Firestore database to trigger in.
public struct FirestoreDatabase: Sendable {
    let name: String

    /// Triggers on documents matching a path pattern in this database.
    public func document(_ path: String) -> FirestoreDocumentTrigger {
        FirestoreDocumentTrigger(database: name, path: path, functionOptions: FunctionOptions())
    }
}
