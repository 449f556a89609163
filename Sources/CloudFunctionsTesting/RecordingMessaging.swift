import CloudFunctions
import Foundation
import Synchronization

/// A Messaging backend for tests: records every message sent, and can be told to fail.
public final class RecordingMessaging: MessagingClient {
    private struct State {
        var sent: [Message] = []
        var failures = 0
        var nextID = 1
    }

    private let state = Mutex(State())
    /// The project named in message names.
    public let project: String

    /// Creates a recorder for `project`.
    public init(project: String = "demo-project") {
        self.project = project
    }

    /// The messages sent so far (validate-only sends are not recorded).
    public var sentMessages: [Message] { state.withLock { $0.sent } }

    /// Makes the next `count` sends throw, to exercise retries.
    public func failNextSends(_ count: Int) {
        state.withLock { $0.failures = count }
    }

    /// Forgets the messages sent so far.
    public func reset() {
        state.withLock { $0.sent = [] }
    }

    public func send(_ message: Message, validateOnly: Bool) async throws -> String {
        try state.withLock { state in
            if state.failures > 0 {
                state.failures -= 1
                throw RecordingMessagingError()
            }
            if validateOnly { return "projects/\(project)/messages/validate-only" }
            state.sent.append(message)
            defer { state.nextID += 1 }
            return "projects/\(project)/messages/\(state.nextID)"
        }
    }
}

/// The failure ``RecordingMessaging`` throws when told to fail.
public struct RecordingMessagingError: Error, CustomStringConvertible {
    public var description: String { "messaging is unavailable (simulated failure)" }
}
