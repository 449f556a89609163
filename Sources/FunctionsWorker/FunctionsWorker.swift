import CloudEvents
import CloudFunctions
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

/// The HTTP side of an author's functions binary, speaking the protocol Cloud Run, Eventarc
/// and Knative deliver with (and the emulator uses):
///
/// - `POST /{functionName}`: a CloudEvent in binary mode (`ce-*` headers) or structured mode
///   (`application/cloudevents+json`), or, with neither, a legacy background-event body
///   (`{context, data}` or flat). The function runs once, with `params` from its trigger's
///   match (empty when the trigger does not match: like Cloud Run, the worker does not filter),
///   the attempt from ``attemptHeader`` (else 1) and a deadline of now + its timeout.
///   Answers: 204 when the handler returned; 500 with `X-Google-Status: error` when it threw
///   or outlived its timeout (it is then cancelled; a handler that ignores cancellation delays
///   the answer until it returns); 400 with the reason for a malformed event; 404 for an
///   unknown function; 413 for a body over ``maxBodySize``.
/// - `GET /__/functions.yaml`: the manifest (a JSON body, which is valid YAML).
/// - `GET /__/health`; `GET|POST /__/quitquitquit` answers 200, then stops the server gracefully.
///
/// Handlers reach Firebase through ``admin``: by default none is available (calls throw);
/// ``FunctionsApp`` plugs in HTTP clients of the emulator from the environment.
public struct FunctionsWorker: Sendable {
    /// The functions served.
    public let functions: FunctionRegistry
    /// The Admin clients handlers get.
    public let admin: AdminClients
    /// The time source for deadlines and timeouts.
    public let clock: any BusClock
    /// The largest event body accepted.
    public let maxBodySize: Int
    /// The function also served at `POST /`, where Cloud Run (Eventarc) and Knative deliver
    /// (`FUNCTION_TARGET`); `nil` serves only `POST /{name}`.
    public let target: String?
    let logger: Logger

    /// Creates a worker for a registry.
    ///
    /// - Throws: ``RegistryError`` when the registry has problems.
    public init(
        functions: FunctionRegistry,
        admin: AdminClients = AdminClients(),
        clock: any BusClock = SystemClock(),
        maxBodySize: Int = 10 * 1024 * 1024,
        target: String? = nil,
        logger: Logger = Logger(label: "functions.worker")
    ) throws(RegistryError) {
        try functions.validate()
        self.target = target
        self.functions = functions
        self.admin = admin
        self.clock = clock
        self.maxBodySize = maxBodySize
        self.logger = logger
    }

    /// The router, for serving or for socketless tests; `quit` is called by `/__/quitquitquit`.
    public func router(quit: @escaping @Sendable () -> Void = {}) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let manifest = functions.manifest().json()
        router.get("__/functions.yaml") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/yaml"],
                body: .init(byteBuffer: ByteBuffer(bytes: manifest))
            )
        }
        router.get("__/health") { _, _ in "ok" }
        for method in [HTTPRequest.Method.get, .post] {
            router.on("__/quitquitquit", method: method) { _, _ in
                quit()
                return "ok"
            }
        }
        if let target {
            router.post("/") { request, _ in try await invoke(request, function: target) }
        }
        router.post(":function") { request, context in
            try await invoke(request, function: context.parameters.require("function"))
        }
        return router
    }

    /// Serves on `host:port` (0 = any free port) until `/__/quitquitquit`, SIGTERM, SIGINT or
    /// cancellation, each of which shuts down gracefully.
    ///
    /// - Parameters:
    ///   - stopWhenStandardInputCloses: also shut down when standard input reaches end of file:
    ///     the emulator starts workers with a pipe there, which closes when it dies.
    ///   - onReady: gets the port once the server accepts connections.
    public func run(
        host: String = "127.0.0.1",
        port: Int = 0,
        stopWhenStandardInputCloses: Bool = false,
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let (quitSignal, quitContinuation) = AsyncStream.makeStream(of: Void.self)
        if stopWhenStandardInputCloses {
            // A blocking read on a thread of its own; it ends with the process if input never closes.
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 256)
                while true {
                    let count = read(0, &buffer, buffer.count)
                    if count > 0 || (count < 0 && errno == EINTR) { continue }
                    break
                }
                quitContinuation.yield()
            }
        }
        let app = Application(
            router: router(quit: { quitContinuation.yield() }),
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onReady(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let services = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { quitContinuation.finish() }
                try await services.run()
            }
            group.addTask {
                // A quit request shuts down gracefully: the request itself is answered first.
                for await _ in quitSignal {
                    await services.triggerGracefulShutdown()
                    return
                }
            }
            try await group.waitForAll()
        }
    }
}
