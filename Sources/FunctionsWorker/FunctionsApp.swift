import CloudFunctions
import FirebaseHTTP
import Foundation
import Logging
import ProcessMemory

/// An author's functions binary: register the functions, and `main` does the rest.
///
/// ```swift
/// @main
/// struct AppFunctions: FunctionsApp {
///     static func register(_ functions: inout FunctionRegistry) {
///         functions.use(PushConfig(topic: "PUSH_RC"))
///     }
/// }
/// ```
/// With `FUNCTIONS_MANIFEST_OUTPUT_PATH` set, `main` writes the manifest there and exits 0.
/// Otherwise it serves the functions on `PORT` (0 or unset: any free port) at 127.0.0.1
/// (`HOST` to change it), printing `ready: http://HOST:PORT` once it accepts events. With
/// `K_SERVICE` set, as Cloud Run and Knative set it, it listens on 0.0.0.0 and `PORT` defaults
/// to 8080. `FUNCTION_TARGET=name` also serves that function at `POST /` (an unknown name exits
/// 1, listing the functions); `FUNCTION_SIGNATURE_TYPE` may be `cloudevent` (or `event`) for an
/// event function, and must be `http` when `FUNCTION_TARGET` names a request function. SIGTERM lets
/// running handlers finish for `FUNCTIONS_SHUTDOWN_GRACE_SECONDS` (10 unless set), answering
/// 503 meanwhile, then exits 0. With `K_SERVICE` or `LOG_FORMAT=json` set, logs are Cloud
/// Logging structured JSON lines on standard output (``CloudLoggingLogHandler``), else swift-log's
/// text lines on standard error (``LazyStreamLogHandler``). `main` bootstraps swift-log's
/// `LoggingSystem` for every logger of the process, the app's own included, so `register` must
/// not bootstrap it again (swift-log allows one bootstrap per process). With
/// `FUNCTIONS_STOP_ON_STDIN_EOF=true` (the emulator sets it) it also stops when its standard
/// input closes, so that it never outlives the emulator that started it.
/// Request functions check callers' tokens against Google's public keys, or, with
/// `FUNCTIONS_EMULATOR=true` (the emulator sets it), accept the emulator's unsigned tokens.
/// Registration problems and invalid settings print one line on stderr and exit 1.
public protocol FunctionsApp {
    /// Adds the app's functions.
    static func register(_ functions: inout FunctionRegistry)

    /// The Admin clients handlers get: by default those of
    /// ``FunctionsWorker/adminClients(environment:)``, an emulator's when an emulator variable
    /// is set, else Google's services with application default credentials.
    ///
    /// - Throws: an error that stops the binary (one line on stderr, exit 1), for invalid settings.
    static func adminClients(environment: [String: String]) throws -> AdminClients
}

extension FunctionsApp {
    public static func adminClients(environment: [String: String]) throws -> AdminClients {
        try FunctionsWorker.adminClients(environment: environment)
    }

    #if canImport(Glibc) || canImport(Musl)
    /// Runs the app as the process environment says. The main thread then serves the main
    /// queue (``MainQueueLoop``), where an `async` main would leave it through `dispatch_main()`.
    public static func main() {
        let (functions, admin, environment) = prepare()
        Task { exit(await FunctionsWorker.main(functions: functions, admin: admin, environment: environment)) }
        MainQueueLoop.run()
    }
    #else
    /// Runs the app as the process environment says.
    public static func main() async {
        let (functions, admin, environment) = prepare()
        exit(await FunctionsWorker.main(functions: functions, admin: admin, environment: environment))
    }
    #endif

    /// Releases the loader's relocation tables, raises the open-file limit, bootstraps logging,
    /// and registers the functions.
    private static func prepare() -> (FunctionRegistry, AdminClients, [String: String]) {
        // Nothing reads them again once the process runs (on Linux; elsewhere this does nothing).
        RelocationTables.release()
        let environment = ProcessInfo.processInfo.environment
        // Room for a connection per handler's call and per event in flight.
        OpenFileLimit.raise()
        if FunctionsWorker.logsAsJSON(environment) {
            // Every logger of the process, the author's own included, writes the same JSON lines.
            let project = FunctionsWorker.project(environment)
            LoggingSystem.bootstrap { CloudLoggingLogHandler(label: $0, project: project) }
        } else {
            // swift-log's text lines on standard error, without rendering each event's metadata.
            LoggingSystem.bootstrap(LazyStreamLogHandler.standardError)
        }
        var functions = FunctionRegistry()
        register(&functions)
        do {
            return (functions, try adminClients(environment: environment), environment)
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("error: \(error)\n".utf8))
            exit(1)
        }
    }
}

extension FunctionsWorker {
    /// Whether logs are Cloud Logging JSON lines: in a serverless container (`K_SERVICE`) unless
    /// `LOG_FORMAT` says otherwise, or wherever `LOG_FORMAT=json`.
    static func logsAsJSON(_ environment: [String: String]) -> Bool {
        switch environment["LOG_FORMAT"]?.lowercased() {
        case "json": true
        case .some(let format) where !format.isEmpty: false
        default: environment["K_SERVICE"].map { !$0.isEmpty } ?? false
        }
    }

    /// The entry point of a functions binary, given its environment; returns the exit status.
    ///
    /// - Parameters:
    ///   - functions: the functions the binary serves.
    ///   - admin: the Admin clients handlers get.
    ///   - environment: the process environment (`PORT`, `K_SERVICE`, `FUNCTION_TARGET`, ...).
    ///   - standardOutput: receives the `ready:` line, and the log lines when they are JSON.
    ///   - standardError: receives errors that stop the binary.
    public static func main(
        functions: FunctionRegistry,
        admin: AdminClients = AdminClients(),
        environment: [String: String],
        standardOutput: @escaping @Sendable (String) -> Void = { try? FileHandle.standardOutput.write(contentsOf: Data($0.utf8)) },
        standardError: @escaping @Sendable (String) -> Void = { try? FileHandle.standardError.write(contentsOf: Data($0.utf8)) }
    ) async -> Int32 {
        do {
            try functions.validate()
        } catch {
            standardError("error: the functions cannot be registered: \(error)\n")
            return 1
        }
        if let path = environment["FUNCTIONS_MANIFEST_OUTPUT_PATH"], !path.isEmpty {
            do {
                try functions.manifest().json().write(to: URL(fileURLWithPath: path), options: .atomic)
                return 0
            } catch {
                standardError("error: cannot write the manifest to \(path): \(error)\n")
                return 1
            }
        }
        // In a serverless container (Cloud Run and Knative set K_SERVICE) the platform reaches the
        // worker on every interface at PORT, 8080 unless told; locally it stays on loopback.
        let inContainer = environment["K_SERVICE"].map { !$0.isEmpty } ?? false
        let host = environment["HOST"] ?? (inContainer ? "0.0.0.0" : "127.0.0.1")
        guard let port = Int(environment["PORT"] ?? (inContainer ? "8080" : "0")), (0...65535).contains(port) else {
            standardError("error: PORT must be a number between 0 and 65535\n")
            return 1
        }
        let target = environment["FUNCTION_TARGET"].flatMap { $0.isEmpty ? nil : $0 }
        if let target, functions[target] == nil {
            standardError("error: FUNCTION_TARGET '\(target)' is not a function of this binary; it has: "
                + functions.names.joined(separator: ", ") + "\n")
            return 1
        }
        // The deploy targets say `http` for a request function's container, `cloudevent` for an event function's.
        if let signature = environment["FUNCTION_SIGNATURE_TYPE"] {
            let answersRequests = target.map { functions[$0]?.eventTrigger == nil } ?? false
            guard (answersRequests ? ["http"] : ["cloudevent", "event"]).contains(signature) else {
                let served = target.map { "'\($0)'" } ?? "this binary's functions"
                standardError("error: FUNCTION_SIGNATURE_TYPE '\(signature)' is not served: \(served) "
                    + (answersRequests ? "answers HTTP requests (http)\n" : "take CloudEvents (cloudevent)\n"))
                return 1
            }
        }
        if let format = environment["LOG_FORMAT"], !["", "json", "text"].contains(format.lowercased()) {
            standardError("error: LOG_FORMAT '\(format)' is not a log format: use json or text\n")
            return 1
        }
        var grace = Duration.seconds(10)
        if let text = environment["FUNCTIONS_SHUTDOWN_GRACE_SECONDS"], !text.isEmpty {
            guard let seconds = Double(text), seconds.isFinite, (0...3600).contains(seconds) else {
                standardError("error: FUNCTIONS_SHUTDOWN_GRACE_SECONDS must be a number of seconds from 0 to 3600\n")
                return 1
            }
            grace = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        let project = project(environment)
        var logger = Logger(label: "functions.worker")
        if logsAsJSON(environment) {
            logger = Logger(label: "functions.worker") { CloudLoggingLogHandler(label: $0, project: project, sink: standardOutput) }
        }
        do {
            // Under the emulator (FUNCTIONS_EMULATOR=true) tokens are unsigned, as its Auth issues them.
            let tokens: any TokenVerifier = environment["FUNCTIONS_EMULATOR"] == "true"
                ? EmulatorTokenVerifier(project: project ?? "") : GoogleTokenVerifier(project: project ?? "")
            let worker = try FunctionsWorker(functions: functions, admin: admin, target: target, tokens: tokens,
                logger: logger)
            let stdin = environment["FUNCTIONS_STOP_ON_STDIN_EOF"] == "true"
            try await worker.run(host: host, port: port, stopWhenStandardInputCloses: stdin, shutdownGracePeriod: grace) { port in
                standardOutput("ready: http://\(HostPort(host: host, port: port))\n")
            }
            return 0
        } catch {
            standardError("error: \(error)\n")
            return 1
        }
    }
}
