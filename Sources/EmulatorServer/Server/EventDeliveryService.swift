import FirebaseEmulator
import ServiceLifecycle

/// The emulator's event delivery (outbox, dispatcher and the deployed bus) as a `Service`:
/// when the emulator shuts down it stops publishing and lets the bus finish what it is running,
/// while the HTTP server and the workers still serve those deliveries. What is not finished
/// stays in the outbox for the next start.
struct EventDeliveryService: Service {
    let emulator: Emulator

    func run() async throws {
        try? await gracefulShutdown()
        await emulator.shutdown()
    }
}
