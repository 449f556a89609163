/// An error the Firestore service answered with.
public struct FirestoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status.
    public var code: Int
    /// The canonical status: `NOT_FOUND`, `ALREADY_EXISTS`, `ABORTED`, `FAILED_PRECONDITION`, ...
    public var status: String
    /// The service's message.
    public var message: String

    /// Creates an error.
    public init(code: Int, status: String, message: String) {
        self.code = code
        self.status = status
        self.message = message
    }

    public var description: String { "Firestore \(status) (HTTP \(code)): \(message)" }
}
