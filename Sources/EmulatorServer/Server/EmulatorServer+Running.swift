import CloudFunctions
import Foundation
import Hummingbird
import Logging
import ProcessSupport
import ServiceLifecycle
import UnixSignals

extension EmulatorServer {
    /// The emulator's long-running parts as one group: Google's emulators, the worker processes,
    /// the HTTP server and the emulator's event delivery, started together and stopped in the
    /// reverse order:
    /// delivery first (running handlers finish, still reaching the server and their workers;
    /// what is not finished stays in the outbox for the next start), then the server, then
    /// the workers.
    ///
    /// - Parameters:
    ///   - signals: the signals that start a graceful shutdown (none in tests and tools).
    ///   - services: more services to run with the emulator's (a package watcher), stopped first.
    ///   - onReady: gets the port once the server accepts connections.
    public func serviceGroup(
        signals: [UnixSignal] = [],
        with services: [any Service] = [],
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> ServiceGroup {
        ServiceGroup(configuration: .init(
            // The exporter first, so that it stops last, after what makes spans.
            services: exporters.map { .init(service: $0) } + [
                .init(service: google),
                .init(service: deployments),
                .init(service: application(onReady: onReady)),
                // Shut down on its own (``Emulator/shutdown()``), it takes the group with it.
                .init(service: emulator, successTerminationBehavior: .gracefullyShutdownGroup),
            ] + services.map { .init(service: $0) },
            gracefulShutdownSignals: signals,
            cancellationSignals: [],
            logger: logger
        ))
    }

    /// The span exporter, when an OTLP endpoint is configured.
    private var exporters: [any Service] {
        configuration.otlpEndpoint.map { [OTLPExporter(endpoint: $0, store: traces, logger: logger)] } ?? []
    }

    /// Serves until SIGTERM or SIGINT, then shuts down in order (see ``serviceGroup(signals:with:onReady:)``).
    public func run(with services: [any Service] = [], onReady: @escaping @Sendable (Int) async -> Void = { _ in })
        async throws
    {
        try await serviceGroup(signals: [.sigterm, .sigint], with: services, onReady: onReady).run()
    }

    /// Serves on the configured address (port 0 picks a free one) while `body` runs, then shuts
    /// the emulator down in order: the emulator inside a test or a tool.
    ///
    /// - Parameter body: gets the base URL, e.g. `http://127.0.0.1:53817`, once requests are accepted.
    public func withRunning<T: Sendable>(_ body: @Sendable (URL) async throws -> T) async throws -> T {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let group = serviceGroup { portContinuation.yield($0) }
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            do {
                let result = try await body(URL(string: "http://\(HostPort(host: configuration.host, port: port))")!)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }
}
