import CloudFunctions

/// The `context.messaging` of functions running in process against the emulator.
package struct EmulatorMessagingClient: MessagingClient {
    let service: MessagingService

    /// Creates a client sending through `service`.
    public init(service: MessagingService) {
        self.service = service
    }

    public func send(_ message: Message, validateOnly: Bool) async throws -> String {
        try await service.send(message, validateOnly: validateOnly).name
    }
}
