import Foundation

/// Sends the chunks of a streaming callable before its result.
///
/// When the caller did not ask for a stream (``acceptsStreaming`` is false) chunks are dropped
/// and only the result is sent, as the Firebase SDK does.
public struct CallableResponse: Sendable {
    /// Whether the caller reads chunks.
    public let acceptsStreaming: Bool
    let emit: @Sendable (JSONValue) async throws -> Void

    /// Creates a response; `emit` receives each chunk as JSON.
    public init(acceptsStreaming: Bool, emit: @escaping @Sendable (JSONValue) async throws -> Void) {
        self.acceptsStreaming = acceptsStreaming
        self.emit = emit
    }

    /// Sends one chunk; returns whether it was sent (false when the caller does not stream).
    ///
    /// - Throws: an encoding error, or the connection's error when the caller went away.
    @discardableResult
    public func sendChunk(_ chunk: some Encodable) async throws -> Bool {
        guard acceptsStreaming else { return false }
        try await emit(try JSONValue(encoding: chunk))
        return true
    }
}
