import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird
import Logging

/// The emulator's HTTP face: every emulated service on one port, with the Firebase routes and
/// bodies real clients (curl, firebase-admin, the device SDKs) send, plus the emulator's own
/// `/emulator/v1/...` routes.
public struct EmulatorServer: Sendable {
    /// Where and how the server listens.
    public struct Configuration: Sendable {
        /// The address to bind; 127.0.0.1 unless told otherwise.
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// Request bodies larger than this are refused with 413, without being buffered.
        public var maxBodySize: Int

        /// Creates a configuration.
        public init(host: String = "127.0.0.1", port: Int = 0, maxBodySize: Int = 32 * 1024 * 1024) {
            self.host = host
            self.port = port
            self.maxBodySize = maxBodySize
        }
    }

    /// The services behind the routes.
    public let emulator: Emulator
    /// Where and how it listens.
    public let configuration: Configuration
    let logger: Logger

    /// Creates a server for an emulator.
    public init(emulator: Emulator, configuration: Configuration = Configuration(), logger: Logger? = nil) {
        self.emulator = emulator
        self.configuration = configuration
        self.logger = logger ?? Logger(label: "emulator.http")
    }

    /// The router with every route, for serving or for socketless tests.
    public func router() -> Router<EmulatorRequestContext> {
        let router = Router(context: EmulatorRequestContext.self)
        router.add(middleware: ServiceErrorMiddleware())
        EmulatorRoutes(server: self).add(to: router)
        RemoteConfigRoutes(server: self).add(to: router)
        MessagingRoutes(server: self).add(to: router)
        return router
    }

    /// The application; `onReady` gets the port it listens on once it accepts connections.
    public func application(
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in await onReady(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }
}
