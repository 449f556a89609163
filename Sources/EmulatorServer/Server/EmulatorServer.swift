import CloudFunctions
import FirebaseEmulator
import FirebaseHTTP
import Foundation
import Hummingbird
import Logging
import ProcessSupport
import Synchronization

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
        /// How often a Realtime Database stream (SSE) sends `keep-alive` when nothing changes.
        public var databaseKeepAliveInterval: Duration = .seconds(30)
        /// Whether the functions deployed last (kept in the data directory) start again with the server,
        /// before it reports itself ready.
        public var restoresDeployment = true
        /// How long a deployed worker may take to print its ready line before it is killed.
        public var workerStartTimeout: Duration = .seconds(30)
        /// How long an instance of a function may stay idle before it is stopped (never below
        /// the function's minimum instances, nor below one).
        public var instanceIdleTimeout: Duration = .seconds(60)

        /// The most events posted to a function's worker in one request (a CloudEvents batch);
        /// 1 posts each event alone, in binary mode, as Eventarc does.
        public var deliveryBatch = Configuration.defaultDeliveryBatch

        /// The default of ``deliveryBatch``.
        public static let defaultDeliveryBatch = 64

        /// Google's emulators to start with the server (`firebase.json`'s `emulators.firestore`,
        /// `emulators.pubsub`); the others start when a deployment has triggers on them.
        public var startsFirestore = false
        public var startsPubSub = false

        /// Where the emulator sends the spans it keeps (its own and its workers'), over OTLP/HTTP
        /// in the JSON encoding; `nil` keeps them for the console only.
        public var otlpEndpoint: URL?

        /// Whether the deployed workers export their spans to the emulator (on unless turned
        /// off; the worker benchmark compares both).
        public var tracesWorkers = true

        /// The most traces the emulator starts recording per second (a caller's `traceparent`
        /// decides for its own); see ``EmulatorTracer``.
        public var tracesPerSecond = 100.0

        /// Where Java, the Google Cloud CLI and the `*_EMULATOR_HOST` variables are looked up.
        public var environment = ProcessInfo.processInfo.environment

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
    /// The deployed functions and their worker processes.
    public let deployments: DeploymentManager
    /// Google's Firestore and Pub/Sub emulators.
    package let google: GoogleEmulators
    /// The recent traces: the emulator's spans and its workers'.
    public let traces: TraceStore
    /// Makes the emulator's own spans.
    let tracer: EmulatorTracer
    /// The metrics `GET /metrics` renders.
    public let metrics = EmulatorMetrics()
    let logger: Logger
    private let listening: ListeningAddress
    /// The web pages that may change the emulator: its console, wherever it is opened from.
    let origins: PageOrigins

    /// Creates a server for an emulator.
    public init(emulator: Emulator, configuration: Configuration = Configuration(), logger: Logger? = nil) {
        let logger = logger ?? Logger(label: "emulator.http")
        let listening = ListeningAddress()
        self.emulator = emulator
        self.configuration = configuration
        self.logger = logger
        self.listening = listening
        self.origins = PageOrigins(listening: {
            guard let port = listening.url?.port else { return [] }
            return ["http://127.0.0.1:\(port)", "http://localhost:\(port)", "http://[::1]:\(port)"]
        })
        let traces = TraceStore(exports: configuration.otlpEndpoint != nil)
        self.traces = traces
        self.tracer = EmulatorTracer(store: traces, tracesPerSecond: configuration.tracesPerSecond)
        self.deployments = DeploymentManager(emulator: emulator, baseURL: { listening.url },
            startTimeout: configuration.workerStartTimeout, idleTimeout: configuration.instanceIdleTimeout,
            deliveryBatch: configuration.deliveryBatch, tracer: tracer, metrics: metrics,
            tracesWorkers: configuration.tracesWorkers, logger: logger)
        let google = GoogleEmulators(emulator: emulator, environment: configuration.environment, logger: logger) {
            listening.url.flatMap { url in url.port.map { "\(url.host ?? "127.0.0.1"):\($0)" } }
        }
        self.google = google
        // In-process functions reach Google's emulators as workers do, started when first used.
        emulator.useGoogleClients(
            firestore: HTTPFirestoreClient(foundBy: { try await google.firestore.start().url(path: "") },
                project: emulator.project),
            pubsub: HTTPPubSubClient(foundBy: { try await google.pubsub.start().url(path: "") }, project: emulator.project))
        emulator.onDeploy { [project = emulator.project] triggers in await google.prepare(for: triggers, project: project) }
    }

    /// The address of each emulated service, by the names the firebase-tools hub uses: this
    /// server's (`hub`, `functions`, `database`, `auth`, `remoteconfig`, `tasks`) once it listens, and
    /// Google's emulators while they run.
    package func emulatorAddresses() -> [String: HostPort] {
        var addresses: [String: HostPort] = [:]
        if let url = listening.url, let host = url.host, let port = url.port {
            let own = HostPort(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port)
            for name in ["hub", "functions", "database", "auth", "remoteconfig", "tasks"] { addresses[name] = own }
        }
        for (name, emulator) in [("firestore", google.firestore), ("pubsub", google.pubsub)] {
            switch emulator.status {
            case .running(let address), .external(let address): addresses[name] = address
            default: break
            }
        }
        return addresses
    }

    /// The router with every route, for serving or for socketless tests.
    public func router() -> Router<EmulatorRequestContext> {
        let router = Router(context: EmulatorRequestContext.self)
        router.add(middleware: TracingMiddleware(tracer: tracer))
        router.add(middleware: ServiceErrorMiddleware())
        // Function URLs are public, as in production: the functions check their callers themselves.
        router.add(middleware: FunctionRequestMiddleware(server: self))
        router.add(middleware: HostAndOriginMiddleware(hostCheck: LoopbackHost(listeningHost: configuration.host),
            origins: origins))
        EmulatorRoutes(server: self).add(to: router)
        RemoteConfigRoutes(server: self).add(to: router)
        MessagingRoutes(server: self).add(to: router)
        EmulatorAnalyticsRoutes(server: self).add(to: router)
        EmulatorDeadLetterRoutes(server: self).add(to: router)
        DeployRoutes(server: self).add(to: router)
        AuthRoutes(server: self).add(to: router)
        AuthActionRoutes(server: self).add(to: router)
        DatabaseRoutes(server: self).add(to: router)
        ConsoleRoutes(server: self).add(to: router)
        GoogleEmulatorRoutes(server: self).add(to: router)
        TaskQueueRoutes(server: self).add(to: router)
        TraceRoutes(server: self).add(to: router)
        MetricsRoutes(server: self).add(to: router)
        return router
    }

    /// The application; `onReady` gets the port it listens on once it accepts connections.
    public func application(
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(),
            server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionInputWatcher()])),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { [listening, configuration, deployments, google, logger] channel in
                let port = channel.localAddress?.port ?? 0
                listening.url = URL(string: "http://\(HostPort(host: configuration.host, port: port))")
                for (starts, emulator) in [(configuration.startsFirestore, google.firestore),
                    (configuration.startsPubSub, google.pubsub)] where starts
                {
                    do {
                        try await emulator.start()
                    } catch {
                        logger.warning("\(error)")
                    }
                }
                await deployments.endStaleWorkers()
                if configuration.restoresDeployment { await deployments.restoreLast() }
                await onReady(port)
            },
            logger: logger
        )
    }
}

/// The address the server listens on, once it does (workers are told to call back there).
final class ListeningAddress: Sendable {
    private let value = Mutex<URL?>(nil)

    var url: URL? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
