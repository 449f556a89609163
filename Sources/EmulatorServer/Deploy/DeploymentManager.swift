import CloudFunctions
import FirebaseEmulator
import Foundation
import FunctionsBus
import Logging
import ProcessSupport
import ServiceLifecycle
import Synchronization

/// The functions deployed to the emulator: a manifest, the worker processes serving it (each
/// function its own, see ``FunctionInstances``), and the bus delivering to them. A new
/// deployment replaces the old one without losing events: the new workers start first, then
/// the emulator switches to them (events not finished by the old ones stay in the outbox and go
/// to the new ones).
///
/// As a `Service` it owns the worker processes for the emulator's lifetime: when the emulator
/// shuts down (after the bus has finished what it was running, and the HTTP server has
/// stopped) it stops every worker and waits until the processes are gone.
public final class DeploymentManager: Service, Sendable {
    /// What is deployed.
    public struct Deployment: Sendable {
        /// The manifest as deployed.
        public var manifest: FunctionsManifest
        /// The functions binary.
        public var binary: URL
        /// The instances of each deployed function.
        public var functions: [String: FunctionInstances]
        /// The HTTPS, callable, blocking and task-queue functions, served through their workers.
        public var requests: [String: FunctionTrigger]
        /// Endpoints of kinds this runtime does not know.
        public var skipped: [String]
        /// The functions that receive events (all the manifest's event functions, or those of `--only`).
        public var deployed: Set<String>
        /// When it was deployed.
        public var time: Date
        /// The variables of the package's `.env` files and params, which every worker gets.
        public var environment: [String: String]
        /// The names of the secrets the deployment was given (their values go only to the
        /// workers of the functions that declared them, and are shown nowhere).
        public var secretNames: [String]
        /// The function run for a debugger (`functions debug`), if any.
        public var debugging: String?

        /// Where clients call a request function of this deployment on the emulator at `base`:
        /// `{base}/{project}/{region}/{name}`.
        func url(of name: String, base: URL, project: String) -> String {
            "\(base.absoluteString)/\(project)/\(region(of: name))/\(name)"
        }

        /// The region a function is deployed to (its first, or `us-central1`).
        func region(of name: String) -> String {
            manifest.endpoints[name]?.region?.first ?? "us-central1"
        }

        /// Stops every function's instances.
        func stop() {
            for instances in functions.values { instances.stop() }
        }
    }

    let emulator: Emulator
    let baseURL: @Sendable () -> URL?
    let startTimeout: Duration
    let idleTimeout: Duration
    /// The most events posted to a worker in one request.
    let deliveryBatch: Int
    /// Makes each delivery attempt's span.
    let tracer: EmulatorTracer
    /// Counts each delivery attempt.
    let metrics: EmulatorMetrics
    /// Whether workers export their spans to this emulator.
    let tracesWorkers: Bool
    let logger: Logger
    /// What the workers wrote, by function, for the console and `functions logs`.
    public let logs = FunctionLogs()
    /// How the last build of a watched package went (`{state, output?, time}`), as its
    /// watcher reports it; `nil` when no watcher reported.
    let buildStatus = Mutex<JSONValue?>(nil)
    /// Where every worker supervisor, instance start and idle reaper runs: children of ``run()``.
    let tasks = TaskScope()
    private let current = Mutex<Deployment?>(nil)
    /// Deploys run one at a time (a restore at start-up included), so the last one wins whole.
    private let turn = Mutex((busy: false, waiting: [CheckedContinuation<Void, Never>]()))

    init(
        emulator: Emulator, baseURL: @escaping @Sendable () -> URL?, startTimeout: Duration, idleTimeout: Duration,
        deliveryBatch: Int, tracer: EmulatorTracer, metrics: EmulatorMetrics, tracesWorkers: Bool, logger: Logger
    ) {
        self.deliveryBatch = deliveryBatch
        self.tracer = tracer
        self.metrics = metrics
        self.tracesWorkers = tracesWorkers
        self.emulator = emulator
        self.baseURL = baseURL
        self.startTimeout = startTimeout
        self.idleTimeout = idleTimeout
        self.logger = logger
    }

    /// The current deployment, if any.
    public var deployment: Deployment? { current.withLock { $0 } }

    /// Starts `binary`, which must serve `manifest`, and routes events to it.
    ///
    /// - Throws: ``RegistryError`` for a malformed manifest, ``WorkerError`` when the worker
    ///   does not start.
    /// Each worker gets `environment` (the resolved `.env` files and params) and, of
    /// `secrets`, those its function declared. The function `debug` runs for a debugger: one
    /// instance, whose handlers have no timeout (`FUNCTIONS_DEBUG`), and which the emulator
    /// waits for as long as the platform allows a function of its kind.
    public func deploy(
        binary: URL, manifest: FunctionsManifest, only: [String]? = nil, environment: [String: String] = [:],
        secrets: [String: String] = [:], debug: String? = nil
    ) async throws -> Deployment {
        await takeTurn()
        defer { endTurn() }
        return try await deployInTurn(binary: binary, manifest: manifest, only: only, environment: environment,
            secrets: secrets, debug: debug)
    }

    private func takeTurn() async {
        await withCheckedContinuation { continuation in
            let now = turn.withLock { turn -> Bool in
                guard turn.busy else {
                    turn.busy = true
                    return true
                }
                turn.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func endTurn() {
        let next = turn.withLock { turn -> CheckedContinuation<Void, Never>? in
            guard !turn.waiting.isEmpty else {
                turn.busy = false
                return nil
            }
            return turn.waiting.removeFirst()
        }
        next?.resume()
    }

    private func deployInTurn(
        binary: URL, manifest original: FunctionsManifest, only: [String]?, environment: [String: String],
        secrets: [String: String], debug: String? = nil
    ) async throws -> Deployment {
        var manifest = original
        if let debug {
            guard let endpoint = manifest.endpoints[debug], only?.contains(debug) ?? true,
                let trigger = try? endpoint.functionTrigger()
            else {
                throw RegistryError(problems: [.init(function: debug, code: .unknownFunction,
                    message: "no function named '\(debug)' is deployed, so none can be debugged")])
            }
            // One instance, waited for as long as the platform allows a function of its kind.
            manifest.endpoints[debug]?.timeoutSeconds = Int(trigger.maximumTimeout.seconds)
            manifest.endpoints[debug]?.minInstances = 1
            manifest.endpoints[debug]?.maxInstances = 1
        }
        // Deploying nothing would replace every deployed function with none.
        if let only, only.isEmpty {
            throw RegistryError(problems: [.init(function: "", code: .unknownFunction,
                message: "'only' names no function: give the functions to deploy, or leave it out for all")])
        }
        var pools: [String: FunctionInstances] = [:]
        for (name, endpoint) in manifest.endpoints where only?.contains(name) ?? true {
            // Endpoints of kinds the emulator does not serve get no workers.
            guard case .some(.some) = try? endpoint.functionTrigger() else { continue }
            let options = endpoint.functionOptions
            var variables = environment
            if name == debug { variables["FUNCTIONS_DEBUG"] = "true" }
            for secret in endpoint.secretEnvironmentVariables {
                guard let value = secrets[secret.secretName] else {
                    throw RegistryError(problems: [.init(function: name, code: .invalidConfiguration,
                        message: "the secret \(secret.secretName) has no value: add it to the functions package's .secret.local")])
                }
                variables[secret.key] = value
            }
            pools[name] = FunctionInstances(
                function: name,
                concurrency: options.concurrency,
                minimum: options.minInstances ?? 0,
                maximum: options.maxInstances ?? FunctionInstances.defaultMaximum(concurrency: options.concurrency),
                idleTimeout: idleTimeout,
                logger: logger,
                tasks: tasks,
                deliveries: DeliveryBatcher(function: name, clock: emulator.clock, maximumBatch: deliveryBatch)
            ) { [self, variables] in supervisor(binary: binary, function: name, variables: variables) }
        }
        var (functions, requests, skipped) = try HTTPDelivery.registry(manifest: manifest, instances: pools,
            clock: emulator.clock, tracer: tracer, metrics: metrics)
        if let only {
            let unknown = only.filter { functions[$0] == nil && requests[$0] == nil }
            functions = try functions.only(only.filter { functions[$0] != nil })
            if !unknown.isEmpty {
                throw RegistryError(problems: unknown.map {
                    .init(function: $0, code: .unknownFunction, message: "no function named '\($0)' is in the manifest")
                })
            }
            requests = requests.filter { only.contains($0.key) }
        }
        let deployment = Deployment(manifest: manifest, binary: binary, functions: pools, requests: requests,
            skipped: skipped, deployed: Set(functions.names).union(requests.keys), time: Date(), environment: environment,
            secretNames: secrets.keys.sorted(), debugging: debug)
        do {
            // Every function's first instances start at once; when one fails, all stop.
            try await withTaskCancellationHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for instances in pools.values { group.addTask { try await instances.start() } }
                    try await group.waitForAll()
                }
            } onCancel: {
                deployment.stop()
            }
            try await emulator.deploy(functions, blocking: blockingFunctions(deployment))
        } catch {
            deployment.stop()
            throw error
        }
        let previous = current.withLock { current in
            defer { current = deployment }
            return current
        }
        previous?.stop()
        // Attempts go to the instances of the deployment current when they start.
        emulator.taskQueues.deploy(taskQueues(deployment)) { [weak self] attempt in
            var answer = TaskQueueService.Answer(status: nil, error: "the function is not deployed")
            var tried: FunctionInstances?
            // An attempt a redeploy cut short (its instances stopped, or its worker answering 503
            // as it shut down) goes to the new deployment's instances, as events do.
            while let self, let pool = self.deployment?.functions[attempt.queue], pool !== tried {
                if tried != nil, answer.status != nil && answer.status != 503 { break }
                tried = pool
                answer = await RequestForwarding.dispatch(attempt, pool: pool, clock: self.emulator.clock)
            }
            return answer
        }
        do {
            // A restart runs it as deployed, without the debugger's settings.
            try await emulator.store.saveDeployment(StoredDeployment(binary: binary.path, manifest: original.json(),
                only: only, time: deployment.time, environment: environment, secrets: secrets))
        } catch {
            logger.error("could not record the deployment; it will not restart with the emulator",
                metadata: ["error": "\(error)"])
        }
        return deployment
    }

    /// The deployment's task queues, by function name.
    private func taskQueues(_ deployment: Deployment) -> [String: TaskQueueService.Queue] {
        var queues: [String: TaskQueueService.Queue] = [:]
        for (name, trigger) in deployment.requests {
            guard case .taskQueue(let queue) = trigger, let endpoint = deployment.manifest.endpoints[name] else { continue }
            queues[name] = TaskQueueService.Queue(trigger: queue, location: deployment.region(of: name),
                timeout: endpoint.functionOptions.timeout)
        }
        return queues
    }

    /// The deployment's blocking functions, called through their workers at the URL clients
    /// would see for them.
    private func blockingFunctions(_ deployment: Deployment) -> BlockingFunctions {
        var endpoints: [BlockingTrigger.BlockingEvent: BlockingFunctions.Endpoint] = [:]
        for (name, trigger) in deployment.requests.sorted(by: { $0.key < $1.key }) {
            guard case .blocking(let blocking) = trigger, endpoints[blocking.event] == nil,
                let endpoint = deployment.manifest.endpoints[name]
            else { continue }
            let base = baseURL() ?? URL(string: "http://127.0.0.1")!
            endpoints[blocking.event] = BlockingFunctions.Endpoint(name: name,
                url: deployment.url(of: name, base: base, project: emulator.project),
                audience: BlockingProtocol.audience(project: emulator.project, region: deployment.region(of: name),
                    function: name),
                timeout: .seconds(endpoint.timeoutSeconds ?? 7))
        }
        let pools = deployment.functions
        let clock = emulator.clock
        return BlockingFunctions(endpoints: endpoints) { endpoint, body in
            guard let pool = pools[endpoint.name] else { throw ServiceError(.notFound, "no worker for '\(endpoint.name)'") }
            return try await RequestForwarding.call(endpoint, body: body, pool: pool, clock: clock)
        }
    }

    /// A worker process of `binary` serving `function`, whose process id is kept in the store
    /// while it runs and whose lines go to ``logs``.
    private func supervisor(binary: URL, function: String, variables: [String: String]) -> WorkerSupervisor {
        let store = emulator.store
        let logs = logs
        // The platform's variables win over the package's (which may not use reserved names).
        var environment = variables.merging(workerEnvironment()) { _, platform in platform }
        environment["FUNCTION_TARGET"] = function
        if environment["OTEL_TRACES_EXPORTER"] != nil { environment["OTEL_SERVICE_NAME"] = function }
        return WorkerSupervisor(binary: binary, environment: environment, startTimeout: startTimeout,
            logger: logger, tasks: tasks,
            onProcessChange: { pid, running async in
                if running {
                    try? await store.recordWorkerProcess(pid, binary: binary.path)
                } else {
                    try? await store.forgetWorkerProcess(pid)
                }
            },
            onLine: { [logger] line, stream in
                let entry = logs.append(line, function: function, stream: stream)
                var metadata: Logger.Metadata = ["function": "\(function)"]
                if let event = entry.eventID { metadata["event.id"] = "\(event)" }
                for (key, value) in entry.labels { metadata[key] = "\(value.stringValue ?? value.serialized())" }
                logger.log(level: LogSeverity(rawValue: entry.severity)?.level ?? .info, "\(entry.message)",
                    metadata: metadata)
            })
    }

    /// Ends the workers a crashed emulator left running on this data directory, if they still
    /// run (a worker built with this package stops by itself when the emulator dies; another may
    /// not). Each is recognised by its process id and command line; elsewhere than Linux
    /// nothing is done.
    public func endStaleWorkers() async {
        for (pid, binary) in (try? emulator.store.workerProcesses()) ?? [] {
            try? await emulator.store.forgetWorkerProcess(pid)
            #if os(Linux)
            guard pid > 1, let commandLine = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")),
                commandLine.split(separator: 0).contains(where: { String(decoding: $0, as: UTF8.self) == binary })
            else { continue }
            kill(pid, SIGKILL)
            logger.warning("ended a functions worker a previous emulator left running", metadata: ["pid": "\(pid)"])
            #endif
        }
    }

    /// Starts the functions deployed last again, as an emulator restarted on the same data
    /// does; nothing when none were deployed, or when the binary is gone or fails to start (the
    /// reason is logged and events wait in the outbox for the next deploy).
    public func restoreLast() async {
        await takeTurn()
        defer { endTurn() }
        // A deploy that came first wins.
        guard deployment == nil, let stored = try? emulator.store.lastDeployment() else { return }
        do {
            let manifest = try FunctionsManifest(json: stored.manifest)
            _ = try await deployInTurn(binary: URL(fileURLWithPath: stored.binary), manifest: manifest,
                only: stored.only, environment: stored.environment, secrets: stored.secrets)
            logger.info("restarted the functions deployed last", metadata: ["binary": "\(stored.binary)"])
        } catch {
            logger.error("could not restart the functions deployed last; deploy again",
                metadata: ["binary": "\(stored.binary)", "error": "\(error)"])
        }
    }

    /// What a worker is told: where to listen, the project, and this emulator as the backend
    /// of every service, under the variables our workers and the official Admin SDKs read.
    func workerEnvironment() -> [String: String] {
        var environment = [
            "PORT": "0", "HOST": "127.0.0.1", "GCLOUD_PROJECT": emulator.project,
            "GOOGLE_CLOUD_PROJECT": emulator.project, "FUNCTIONS_STOP_ON_STDIN_EOF": "true",
            "FUNCTIONS_EMULATOR": "true",
            // Structured lines, so that the emulator keeps each one's severity and event (FunctionLogs).
            "LOG_FORMAT": "json",
        ]
        if let base = baseURL(), let host = base.host, let port = base.port {
            environment["FUNCTIONS_EMULATOR_URL"] = base.absoluteString
            let address = HostPort(host: host, port: port)
            environment["FIREBASE_DATABASE_EMULATOR_HOST"] = address.description
            environment["FIREBASE_AUTH_EMULATOR_HOST"] = address.description
            let config: JSONValue = [
                "projectId": .string(emulator.project),
                "databaseURL": .string("http://\(address)/?ns=\(emulator.defaultDatabaseInstance)"),
            ]
            environment["FIREBASE_CONFIG"] = config.serialized(sortedKeys: true)
            if tracesWorkers {
                // Spans to this emulator's receiver, soon after they end, in the JSON encoding
                // it reads; the worker's metrics and logs stay with it.
                environment["OTEL_TRACES_EXPORTER"] = "otlp"
                environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = "http://\(address)" + TraceRoutes.receiverPath
                environment["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] = "http/json"
                environment["OTEL_BSP_SCHEDULE_DELAY"] = "100"
                environment["OTEL_METRICS_EXPORTER"] = "none"
                environment["OTEL_LOGS_EXPORTER"] = "none"
            }
        }
        return environment
    }

    /// Stops the workers and waits until their processes are gone.
    func stopAndWait() async {
        guard let deployment = current.withLock({ $0 }) else { return }
        await withTaskGroup(of: Void.self) { group in
            for instances in deployment.functions.values { group.addTask { await instances.stopAndWait() } }
        }
    }

    /// Runs the worker supervisors (as children of this call) until the emulator shuts down,
    /// then stops every worker and waits until its process is gone. Deploys need it running.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.tasks.run() }
            try? await gracefulShutdown()
            await stopAndWait()
            tasks.finish()
        }
    }
}
