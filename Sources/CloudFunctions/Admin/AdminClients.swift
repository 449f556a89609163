/// The Admin clients a handler reaches through its context, bound to one backend: the
/// in-process emulator, an emulator over HTTP, or a recorder in tests.
public struct AdminClients: Sendable {
    /// Cloud Messaging.
    public var messaging: any MessagingClient

    /// Creates the clients; a service left out fails with ``AdminClientError`` when used.
    public init(messaging: any MessagingClient = UnavailableMessaging()) {
        self.messaging = messaging
    }
}

/// A handler used an Admin client that this runtime has no backend for.
public struct AdminClientError: Error, Sendable, CustomStringConvertible {
    /// The service, e.g. `messaging`.
    public var service: String

    public var description: String {
        "no \(service) backend is configured: pass one in AdminClients when creating the runtime"
    }
}

/// The messaging client of a runtime without a Messaging backend: every send fails.
public struct UnavailableMessaging: MessagingClient {
    /// Creates the client.
    public init() {}

    public func send(_ message: Message, validateOnly: Bool) async throws -> String {
        throw AdminClientError(service: "messaging")
    }
}
