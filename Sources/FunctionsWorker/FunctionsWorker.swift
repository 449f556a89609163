import CloudEvents
import CloudFunctions
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import CoreMetrics
import Tracing
import UnixSignals

/// The HTTP side of an author's functions binary, speaking the protocol Cloud Run, Eventarc
/// and Knative deliver with (and the emulator uses):
///
/// - `POST /{functionName}`: a CloudEvent in binary mode (`ce-*` headers) or structured mode
///   (`application/cloudevents+json`), or, with neither, a legacy background-event body
///   (`{context, data}` or flat). The function runs once, with `params` from its trigger's
///   match, the attempt from ``attemptHeader`` (else 1) and a deadline of now + its timeout.
///   An event of the function's type that its path pattern or filters exclude (a Knative
///   Trigger filters on exact attributes only) is not run: 200 with ``skippedHeader``.
///   Answers: 200 (no body) when the handler returned; 500 with `X-Google-Status: error` when it threw
///   or outlived its timeout (it is then cancelled; a handler that ignores cancellation delays
///   the answer until it returns); 400 with the reason for a malformed event; 404 for an
///   unknown function; 413 for a body over ``maxBodySize``. A batch of events
///   (`application/cloudevents-batch+json`, as the emulator sends them) runs them at once and
///   streams one answer line per event as each finishes.
/// - `ANY /{functionName}[/path]` for HTTPS, callable and blocking functions: the request is
///   handed to the function with the path below its name, and its answer is sent back (a
///   streaming callable's events as they come). Tokens are checked with ``tokens``. A body
///   over ``maxBodySize`` is 413.
/// - `GET /__/functions.yaml`: the manifest (a JSON body, which is valid YAML).
/// - `GET /__/health` (503 once shutting down); `GET|POST /__/quitquitquit` answers 200, then
///   shuts down as SIGTERM does.
///
/// Shutdown (SIGTERM, SIGINT, `/__/quitquitquit`, or standard input closing when asked) is
/// graceful the way Cloud Run and Knative expect: events that arrive from then on are answered
/// 503 (which brokers retry, elsewhere), the handlers already running get up to the grace
/// period to finish and are answered as usual, and then the server stops and ``run(host:port:stopWhenStandardInputCloses:shutdownGracePeriod:services:onReady:)``
/// returns. Handlers still running after the grace period are cancelled.
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
    /// Checks the tokens callers of request functions present.
    public let tokens: any TokenVerifier
    /// Whether handlers run without their timeout (for a debugger, which may hold one at a
    /// breakpoint): their deadline is a year away.
    public var runsWithoutTimeout = false
    let logger: Logger
    /// Whether invocations make spans: a tracer was bootstrapped (``WorkerTelemetry``).
    let tracesInvocations: Bool
    /// Each event function's invocation metrics.
    let metrics: [String: InvocationMetrics]
    /// Admits events until shutdown begins.
    let gate = ShutdownGate()

    /// How long one invocation of `function` may run: its timeout, or a year when debugging.
    func timeout(of function: CloudFunction) -> Duration {
        runsWithoutTimeout ? .seconds(365 * 86_400) : function.options.timeout
    }

    /// Creates a worker for a registry.
    ///
    /// - Throws: `RegistryError` when the registry has problems.
    public init(
        functions: FunctionRegistry,
        admin: AdminClients = AdminClients(),
        clock: any BusClock = SystemClock(),
        maxBodySize: Int = 10 * 1024 * 1024,
        target: String? = nil,
        tokens: (any TokenVerifier)? = nil,
        logger: Logger = Logger(label: "functions.worker")
    ) throws(RegistryError) {
        try functions.validate()
        self.target = target
        // Without a verifier, tokens must carry Google's signature, and no project is trusted.
        self.tokens = tokens ?? GoogleTokenVerifier(project: "", clock: clock)
        self.functions = functions
        self.admin = admin
        self.clock = clock
        self.maxBodySize = maxBodySize
        self.logger = logger
        tracesInvocations = !(InstrumentationSystem.tracer is NoOpTracer)
        // None without a metrics backend: an invocation then reads no clock and counts nothing.
        metrics = MetricsSystem.factory is NOOPMetricsHandler ? [:]
            : Dictionary(uniqueKeysWithValues: functions.names.filter { functions[$0]?.eventTrigger != nil }
                .map { ($0, InvocationMetrics(function: $0)) })
    }

    /// The router, for serving or for socketless tests; `quit` is called by `/__/quitquitquit`.
    public func router(quit: @escaping @Sendable () -> Void = {}) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        // Built when asked (by a deploy, once), not at launch: encoding it touches memory a
        // worker that only handles events never needs.
        let functions = functions
        router.get("__/functions.yaml") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/yaml"],
                body: .init(byteBuffer: ByteBuffer(bytes: functions.manifest().json()))
            )
        }
        let gate = gate
        router.get("__/health") { _, _ in
            gate.isClosed ? Response(status: .serviceUnavailable) : Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok")))
        }
        for method in [HTTPRequest.Method.get, .post] {
            router.on("__/quitquitquit", method: method) { _, _ in
                quit()
                return "ok"
            }
        }
        // Event functions take POST; request functions any method, and any path below their name.
        // A request function named by FUNCTION_TARGET answers at every path, as the Functions
        // Framework serves it in a container of its own.
        let requestTarget = target.flatMap { functions[$0]?.eventTrigger == nil ? $0 : nil }
        // Serves the function `name` gives at `path` and (as a request function's path) below it.
        func serve(
            _ path: RouterPath, below: RouterPath, method: HTTPRequest.Method,
            name: @escaping @Sendable (BasicRequestContext) throws -> String
        ) {
            router.on(path, method: method) { request, context in
                try await invoke(request, function: name(context), path: "/")
            }
            router.on(below, method: method) { request, context in
                try await invoke(request, function: name(context),
                    path: "/" + context.parameters.getCatchAll().joined(separator: "/"))
            }
        }
        for method in Self.methods {
            if let requestTarget {
                serve("/", below: "/**", method: method) { _ in requestTarget }
                continue
            }
            if let target {
                router.on("/", method: method) { request, _ in try await invoke(request, function: target, path: "/") }
            }
            // Each function at its own literal path, which the router matches without capturing
            // a parameter (the paths below it too: the router does not fall back from a literal
            // to `:function`); any other name reaches `:function` and its 404.
            for name in functions.names {
                serve(RouterPath(name), below: RouterPath(name + "/**"), method: method) { _ in name }
            }
            serve(":function", below: ":function/**", method: method) { try $0.parameters.require("function") }
        }
        return router
    }

    /// Serves on `host:port` (0 = any free port) until `/__/quitquitquit`, SIGTERM or SIGINT,
    /// each of which shuts down gracefully (see ``FunctionsWorker``), or until cancelled.
    ///
    /// - Parameters:
    ///   - host: the address to listen on.
    ///   - port: the port; 0 picks a free one.
    ///   - stopWhenStandardInputCloses: also shut down when standard input reaches end of file:
    ///     the emulator starts workers with a pipe there, which closes when it dies.
    ///   - shutdownGracePeriod: how long running handlers may take to finish once shutdown begins.
    ///   - services: services that run alongside the server, started before it and stopped after
    ///     it (the telemetry exporters, which then send what is left).
    ///   - onReady: gets the port once the server accepts connections.
    public func run(
        host: String = "127.0.0.1",
        port: Int = 0,
        stopWhenStandardInputCloses: Bool = false,
        shutdownGracePeriod: Duration = .seconds(10),
        services extra: [any Service] = [],
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let (quitSignal, quitContinuation) = AsyncStream.makeStream(of: Void.self)
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
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
        var configuration = ServiceGroupConfiguration(services: extra + [app], logger: logger)
        // Past the grace period the server is shut down while handlers still run: they are
        // cancelled, and if they ignore it the group stops waiting for them a second later.
        configuration.maximumGracefulShutdownDuration = .seconds(1)
        let services = ServiceGroup(configuration: configuration)
        let gate = gate
        let logger = logger
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await signal in signals {
                    logger.info("received \(signal)")
                    quitContinuation.yield()
                }
            }
            group.addTask {
                // A quit request is answered before the server stops.
                for await _ in quitSignal {
                    gate.close()
                    let running = gate.inFlight
                    if running > 0 {
                        logger.info("shutting down: waiting up to \(shutdownGracePeriod) for \(running) running event(s)")
                    }
                    if await !gate.waitUntilIdle(atMost: shutdownGracePeriod) {
                        logger.warning("shutting down: \(gate.inFlight) event(s) still running after \(shutdownGracePeriod) are cancelled")
                    }
                    await services.triggerGracefulShutdown()
                    return
                }
            }
            // The server's end (after a shutdown, or a failure) ends the watchers too.
            defer { group.cancelAll() }
            try await services.run()
        }
    }
}
