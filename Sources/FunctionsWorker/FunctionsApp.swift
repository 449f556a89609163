import CloudFunctions
import FirebaseHTTP
import Foundation
import Logging
import ProcessSupport
import ServiceLifecycle

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
/// The environment is read once, into a ``WorkerConfiguration``.
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

    /// Runs the app as the process environment says.
    public static func main() async {
        /// Invalid settings stop the binary with one line.
        func stop(_ error: any Error) -> Never {
            try? FileHandle.standardError.write(contentsOf: Data("error: \(error)\n".utf8))
            exit(1)
        }
        let environment = ProcessInfo.processInfo.environment
        let configuration: WorkerConfiguration
        do {
            configuration = try WorkerConfiguration(environment: environment)
        } catch {
            stop(error)
        }
        // Room for a connection per handler's call and per event in flight.
        OpenFileLimit.raise()
        if configuration.logsAsJSON {
            // Every logger of the process, the author's own included, writes the same JSON lines.
            let project = configuration.project
            LoggingSystem.bootstrap { CloudLoggingLogHandler(label: $0, project: project) }
        } else {
            // swift-log's text lines on standard error, without rendering each event's metadata.
            LoggingSystem.bootstrap(LazyStreamLogHandler.standardError)
        }
        var functions = FunctionRegistry()
        register(&functions)
        var telemetry: [any Service] = []
        if configuration.manifestOutputPath == nil {
            do {
                telemetry = try WorkerTelemetry.bootstrap(environment: environment,
                    serviceName: configuration.target ?? environment["K_SERVICE"] ?? "functions")
            } catch {
                stop(error)
            }
        }
        // Writing the manifest calls no service: the Admin settings are not read then.
        var admin = AdminClients()
        if configuration.manifestOutputPath == nil {
            do {
                admin = try adminClients(environment: environment)
            } catch {
                stop(error)
            }
        }
        exit(await FunctionsWorker.main(functions: functions, admin: admin, configuration: configuration,
            services: telemetry))
    }
}

extension FunctionsWorker {
    /// The entry point of a functions binary, given its environment; returns the exit status.
    ///
    /// - Parameters:
    ///   - functions: the functions the binary serves.
    ///   - admin: the Admin clients handlers get.
    ///   - environment: the process environment (`PORT`, `K_SERVICE`, `FUNCTION_TARGET`, ...; see
    ///     ``WorkerConfiguration``).
    ///   - standardOutput: receives the `ready:` line, and the log lines when they are JSON.
    ///   - standardError: receives errors that stop the binary.
    public static func main(
        functions: FunctionRegistry,
        admin: AdminClients = AdminClients(),
        environment: [String: String],
        standardOutput: @escaping @Sendable (String) -> Void = { try? FileHandle.standardOutput.write(contentsOf: Data($0.utf8)) },
        standardError: @escaping @Sendable (String) -> Void = { try? FileHandle.standardError.write(contentsOf: Data($0.utf8)) }
    ) async -> Int32 {
        let configuration: WorkerConfiguration
        do {
            configuration = try WorkerConfiguration(environment: environment)
        } catch {
            standardError("error: \(error)\n")
            return 1
        }
        return await main(functions: functions, admin: admin, configuration: configuration,
            standardOutput: standardOutput, standardError: standardError)
    }

    /// The entry point of a functions binary, given its configuration; returns the exit status.
    /// `services` (the exporters of ``WorkerTelemetry``) run alongside the server and stop after it.
    public static func main(
        functions: FunctionRegistry,
        admin: AdminClients = AdminClients(),
        configuration: WorkerConfiguration,
        services: [any Service] = [],
        standardOutput: @escaping @Sendable (String) -> Void = { try? FileHandle.standardOutput.write(contentsOf: Data($0.utf8)) },
        standardError: @escaping @Sendable (String) -> Void = { try? FileHandle.standardError.write(contentsOf: Data($0.utf8)) }
    ) async -> Int32 {
        do {
            try functions.validate()
        } catch {
            standardError("error: the functions cannot be registered: \(error)\n")
            return 1
        }
        if let path = configuration.manifestOutputPath {
            do {
                try functions.manifest().json().write(to: URL(fileURLWithPath: path), options: .atomic)
                return 0
            } catch {
                standardError("error: cannot write the manifest to \(path): \(error)\n")
                return 1
            }
        }
        do {
            try configuration.check(against: functions)
        } catch {
            standardError("error: \(error)\n")
            return 1
        }
        let project = configuration.project
        var logger = Logger(label: "functions.worker")
        if configuration.logsAsJSON {
            logger = Logger(label: "functions.worker") { CloudLoggingLogHandler(label: $0, project: project, sink: standardOutput) }
        }
        do {
            // Under the emulator (FUNCTIONS_EMULATOR=true) tokens are unsigned, as its Auth issues them.
            let tokens: any TokenVerifier = configuration.underEmulator
                ? EmulatorTokenVerifier(project: project ?? "") : GoogleTokenVerifier(project: project ?? "")
            var worker = try FunctionsWorker(functions: functions, admin: admin, target: configuration.target,
                tokens: tokens, logger: logger)
            worker.runsWithoutTimeout = configuration.debugging
            let host = configuration.host
            try await worker.run(host: host, port: configuration.port,
                stopWhenStandardInputCloses: configuration.stopsWhenStandardInputCloses,
                shutdownGracePeriod: configuration.shutdownGracePeriod, services: services) { port in
                standardOutput("ready: http://\(HostPort(host: host, port: port))\n")
            }
            return 0
        } catch {
            standardError("error: \(error)\n")
            return 1
        }
    }
}
