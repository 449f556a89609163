/// Sends Firebase Cloud Messaging messages, like the Admin SDK's `messaging()`.
public protocol MessagingClient: Sendable {
    /// Sends a message, or only validates it when `validateOnly` is set.
    ///
    /// - Returns: the message name, `projects/{project}/messages/{id}`.
    /// - Throws: when the message is invalid or the backend refuses it.
    func send(_ message: Message, validateOnly: Bool) async throws -> String
}

extension MessagingClient {
    /// Sends a message.
    ///
    /// - Returns: the message name, `projects/{project}/messages/{id}`.
    @discardableResult
    public func send(_ message: Message) async throws -> String {
        try await send(message, validateOnly: false)
    }
}
