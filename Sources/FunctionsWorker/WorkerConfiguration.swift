import CloudFunctions
import Foundation

/// What a functions binary's environment asks of it, read and checked once at start.
///
/// - `FUNCTIONS_MANIFEST_OUTPUT_PATH`: write the manifest there and exit.
/// - `PORT` (0: any free port; 8080 in a container, else 0), `HOST` (in a container, where
///   Cloud Run and Knative set `K_SERVICE`, 0.0.0.0; else 127.0.0.1).
/// - `FUNCTION_TARGET`, `FUNCTION_SIGNATURE_TYPE` (`http`, `cloudevent` or `event`).
/// - `LOG_FORMAT` (`json` or `text`; JSON by default in a container).
/// - `FUNCTIONS_SHUTDOWN_GRACE_SECONDS` (0 to 3600, 10 by default).
/// - `FUNCTIONS_STOP_ON_STDIN_EOF=true` and `FUNCTIONS_EMULATOR=true`, which the emulator sets,
///   and `FUNCTIONS_DEBUG=true`, which `functions debug` sets: handlers run without a timeout.
/// - The project: `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT`, else `FIREBASE_CONFIG`'s `projectId`.
public struct WorkerConfiguration: Sendable, Hashable {
    /// Where to write the manifest instead of serving, when asked.
    public var manifestOutputPath: String?
    /// The address to listen on.
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// The function also served at `POST /`.
    public var target: String?
    /// The Functions Framework signature the platform expects the target to serve.
    public var signatureType: String?
    /// Whether logs are Cloud Logging JSON lines on standard output (else text on standard error).
    public var logsAsJSON: Bool
    /// How long running handlers may take to finish once shutdown begins.
    public var shutdownGracePeriod: Duration
    /// Whether the binary stops when its standard input closes (the emulator's pipe).
    public var stopsWhenStandardInputCloses: Bool
    /// Whether it runs under the emulator, whose tokens are unsigned.
    public var underEmulator: Bool
    /// Whether a debugger may hold its handlers: they run without a timeout.
    public var debugging: Bool
    /// The Google Cloud project the environment names.
    public var project: String?

    /// Reads the environment.
    ///
    /// - Throws: ``WorkerConfigurationError`` naming the first setting that is not valid.
    public init(environment: [String: String]) throws(WorkerConfigurationError) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        manifestOutputPath = value("FUNCTIONS_MANIFEST_OUTPUT_PATH")
        // In a serverless container (Cloud Run and Knative set K_SERVICE) the platform reaches the
        // worker on every interface at PORT, 8080 unless told; locally it stays on loopback.
        let inContainer = value("K_SERVICE") != nil
        host = environment["HOST"] ?? (inContainer ? "0.0.0.0" : "127.0.0.1")
        guard let port = Int(environment["PORT"] ?? (inContainer ? "8080" : "0")), (0...65535).contains(port) else {
            throw WorkerConfigurationError("PORT must be a number between 0 and 65535")
        }
        self.port = port
        target = value("FUNCTION_TARGET")
        signatureType = environment["FUNCTION_SIGNATURE_TYPE"]
        switch environment["LOG_FORMAT"]?.lowercased() {
        case "json": logsAsJSON = true
        case "text": logsAsJSON = false
        case nil, "": logsAsJSON = inContainer
        case let format?: throw WorkerConfigurationError("LOG_FORMAT '\(format)' is not a log format: use json or text")
        }
        shutdownGracePeriod = .seconds(10)
        if let text = value("FUNCTIONS_SHUTDOWN_GRACE_SECONDS") {
            guard let seconds = Double(text), seconds.isFinite, (0...3600).contains(seconds) else {
                throw WorkerConfigurationError("FUNCTIONS_SHUTDOWN_GRACE_SECONDS must be a number of seconds from 0 to 3600")
            }
            shutdownGracePeriod = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        stopsWhenStandardInputCloses = environment["FUNCTIONS_STOP_ON_STDIN_EOF"] == "true"
        underEmulator = environment["FUNCTIONS_EMULATOR"] == "true"
        debugging = environment["FUNCTIONS_DEBUG"] == "true"
        project = FunctionsWorker.project(environment)
    }

    /// Checks the target and its signature type against the functions the binary has.
    ///
    /// - Throws: ``WorkerConfigurationError`` for a target that is not one of them, or a
    ///   signature type its function does not serve.
    public func check(against functions: FunctionRegistry) throws(WorkerConfigurationError) {
        if let target, functions[target] == nil {
            throw WorkerConfigurationError("FUNCTION_TARGET '\(target)' is not a function of this binary; it has: "
                + functions.names.joined(separator: ", "))
        }
        // The deploy targets say `http` for a request function's container, `cloudevent` for an event function's.
        if let signatureType {
            let answersRequests = target.map { functions[$0]?.eventTrigger == nil } ?? false
            guard (answersRequests ? ["http"] : ["cloudevent", "event"]).contains(signatureType) else {
                let served = target.map { "'\($0)'" } ?? "this binary's functions"
                throw WorkerConfigurationError("FUNCTION_SIGNATURE_TYPE '\(signatureType)' is not served: \(served) "
                    + (answersRequests ? "answers HTTP requests (http)" : "take CloudEvents (cloudevent)"))
            }
        }
    }
}

/// A setting of a functions binary's environment is not valid; the message says which and why.
public struct WorkerConfigurationError: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
