import ArgumentParser
import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import FirebaseHTTP
import Foundation
import Hummingbird
import Logging
import ProcessSupport
import ServiceLifecycle

/// `functions emulators:start`: serves every emulated service on one port.
struct EmulatorsStart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulators:start",
        abstract: "Start the emulator: Remote Config, Realtime Database, Auth, Messaging and Analytics on one port.",
        discussion: """
            Prints 'ready: http://HOST:PORT' once it accepts requests, then 'console: URL', the web \
            console's address. State is kept in SQLite in the \
            data directory (default .functions/) unless --in-memory is given. Stop it with Ctrl-C or SIGTERM.
            """
    )

    @Option(help: "The project id.")
    var project = "demo-project"

    @Option(help: "The address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on; 0 picks a free one (default 4400).")
    var port: Int?

    @Option(help: "A firebase.json: emulators.functions.host/port and the remoteconfig.template to start with.")
    var config: String?

    @Option(name: .customLong("data-dir"), help: "Where to keep state.")
    var dataDirectory = ".functions"

    @Flag(name: .customLong("in-memory"), help: "Keep no state on disk.")
    var inMemory = false

    @Option(name: .customLong("import"),
        help: "Start from an export written by emulators:export (replaces the state).")
    var importDirectory: String?

    @Option(name: .customLong("rc-fetch-limit"),
        help: "Throttle each app instance's Remote Config fetches: COUNT/SECONDS, e.g. 5/3600 (default: no limit).")
    var fetchLimit: String?

    @Option(name: .customLong("database-rules"),
        help: "Realtime Database security rules (database.rules.json) to enforce; default: firebase.json's database.rules.")
    var databaseRules: String?

    @Option(name: .customLong("max-body"), help: "The largest request body accepted, in bytes.")
    var maxBodySize = 32 * 1024 * 1024

    @Option(name: .customLong("instance-idle-timeout"),
        help: "Seconds an instance of a deployed function may stay idle before it is stopped (never below its minimum).")
    var instanceIdleTimeout = 60.0

    @Option(name: .customLong("delivery-batch"),
        help: "The most events posted to a function's worker in one request; 1 posts each alone, in binary mode, as Eventarc does.")
    var deliveryBatch = EmulatorServer.Configuration.defaultDeliveryBatch

    @Option(help: "Send the traces the emulator keeps (its own spans and its workers') to this OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318, in the JSON encoding.")
    var otlp: String?

    @Option(name: .customLong("traces-per-second"),
        help: "The most traces the emulator starts recording per second, in bursts of as many (a caller's traceparent decides for its own); 0 records none it starts.")
    var tracesPerSecond = 100.0

    @Flag(name: .customLong("no-worker-traces"),
        help: "Do not have the deployed workers export their spans (the console's traces then show the emulator's side only).")
    var noWorkerTraces = false

    @Flag(help: "Start Google's Firestore emulator with this one (it starts anyway for Firestore triggers).")
    var firestore = false

    @Flag(help: "Start Google's Pub/Sub emulator with this one (it starts anyway for Pub/Sub triggers).")
    var pubsub = false

    @Option(name: .customLong("log-level"),
        help: "The least severe of the emulator's own log lines shown: trace, debug, info (instances started and stopped), notice, warning, error or critical.")
    var logLevel: Logger.Level = .warning

    @Flag(help: "Build and deploy the functions package (--source) once started, and again on every change to it (see deploy --watch).")
    var watch = false

    @Option(help: "--watch: the functions package.")
    var source = "functions"

    @Option(help: "--watch: the build configuration, debug (quicker to build) or release.")
    var configuration = "debug"

    @Option(name: .customLong("scratch-path"), help: "--watch: the build folder (default: the package's own .build).")
    var scratchPath: String?

    @Option(name: .customLong("event-log-size"),
        help: "How many of the newest events the event log keeps once they are done; events not done are always kept.")
    var eventLogSize = Emulator.defaultEventLogSize

    /// An OTLP endpoint: an http or https URL with a host.
    static func otlpEndpoint(_ text: String) -> URL? {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil
        else { return nil }
        return url
    }

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
        if let fetchLimit, Self.parseFetchLimit(fetchLimit) == nil {
            throw ValidationError(
                "--rc-fetch-limit must be COUNT/SECONDS (count up to 1000000, seconds up to a year), e.g. 5/3600")
        }
        guard maxBodySize > 0 else { throw ValidationError("--max-body must be positive") }
        guard instanceIdleTimeout.isFinite, (0.1...86_400).contains(instanceIdleTimeout) else {
            throw ValidationError("--instance-idle-timeout must be between 0.1 and 86400 seconds")
        }
        guard (1...1000).contains(deliveryBatch) else { throw ValidationError("--delivery-batch must be between 1 and 1000") }
        guard tracesPerSecond.isFinite, (0...1_000_000).contains(tracesPerSecond) else {
            throw ValidationError("--traces-per-second must be between 0 and 1000000")
        }
        if let otlp, Self.otlpEndpoint(otlp) == nil {
            throw ValidationError("--otlp must be an http:// or https:// URL, e.g. http://127.0.0.1:4318, not '\(otlp)'")
        }
        guard (1...100_000_000).contains(eventLogSize) else {
            throw ValidationError("--event-log-size must be between 1 and 100000000")
        }
        guard ["release", "debug"].contains(configuration) else {
            throw ValidationError("--configuration must be release or debug, not '\(configuration)'")
        }
        guard !project.isEmpty, project.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw ValidationError("--project must be letters, digits and '-'")
        }
    }

    func run() async throws {
        // Clients, workers and the workers' Admin calls may hold many connections at once; the
        // workers it starts inherit the raised limit.
        OpenFileLimit.raise()
        // Rendered only when a line is written: the HTTP server sets metadata on every request.
        var logger = Logger(label: "functions.emulator", factory: LazyStreamLogHandler.standardError)
        logger.logLevel = logLevel
        let file = try config.map { try FirebaseConfig(contentsOf: URL(fileURLWithPath: $0)) }
        let host = host ?? file?.host ?? "127.0.0.1"
        let port = port ?? file?.port ?? 4400
        let directory = inMemory ? nil : URL(fileURLWithPath: dataDirectory, isDirectory: true)
        let emulator: Emulator
        do {
            emulator = try Emulator(project: project, directory: directory, eventLogSize: eventLogSize, logger: logger)
        } catch {
            throw CLIError("cannot open the emulator's data in \(dataDirectory): \(error)")
        }
        if let importDirectory {
            do {
                try await emulator.importState(from: URL(fileURLWithPath: importDirectory, isDirectory: true))
            } catch {
                throw CLIError("cannot import \(importDirectory): \(error)")
            }
        }
        if let file { try await Self.apply(file, to: emulator) }
        let rulesFile = databaseRules.map { URL(fileURLWithPath: $0) } ?? file?.databaseRules
        if let rulesFile {
            emulator.database.rules = try Self.rules(rulesFile)
        } else {
            try? FileHandle.standardError.write(contentsOf: Data(
                "› no database rules given (--database-rules FILE or firebase.json's database.rules): every client may read and write everything, as in the official emulator\n".utf8))
        }
        if let limit = fetchLimit.flatMap(Self.parseFetchLimit) { emulator.remoteConfig.setFetchLimit(limit) }
        var configuration = EmulatorServer.Configuration(host: host, port: port, maxBodySize: maxBodySize)
        configuration.instanceIdleTimeout = .milliseconds(Int64((instanceIdleTimeout * 1000).rounded()))
        configuration.deliveryBatch = deliveryBatch
        configuration.otlpEndpoint = otlp.flatMap(Self.otlpEndpoint)
        configuration.tracesWorkers = !noWorkerTraces
        configuration.tracesPerSecond = tracesPerSecond
        configuration.startsFirestore = firestore || file?.startsFirestore == true
        configuration.startsPubSub = pubsub || file?.startsPubSub == true
        let server = EmulatorServer(emulator: emulator, configuration: configuration, logger: logger)
        let (ready, readyContinuation) = AsyncStream.makeStream(of: URL.self, bufferingPolicy: .bufferingNewest(1))
        var services: [any Service] = []
        if watch {
            var arguments = ["--source", source, "--configuration", self.configuration, "--project", project]
            if let scratchPath { arguments += ["--scratch-path", scratchPath] }
            let deploy = try Deploy.parse(arguments)
            let project = project
            services.append(PackageWatcher(deploy: deploy, package: try deploy.packageFolder()) {
                for await base in ready { return EmulatorAPI(base: base, project: project) }
                throw CancellationError()
            })
        }
        try await server.run(with: services) { port in
            let address = HostPort(host: host, port: port)
            try? FileHandle.standardOutput.write(contentsOf: Data("ready: http://\(address)\nconsole: http://\(address)/\n".utf8))
            if let base = URL(string: "http://\(address)") { readyContinuation.yield(base) }
        }
    }
}

extension EmulatorsStart {
    /// `5/3600` → 5 fetches per 3600 s.
    static func parseFetchLimit(_ text: String) -> RemoteConfigFetchLimit? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let count = Int(parts[0]), (1...1_000_000).contains(count), let seconds = Int(parts[1]),
            (1...31_536_000).contains(seconds)
        else {
            return nil
        }
        return RemoteConfigFetchLimit(count: count, window: .seconds(seconds))
    }

    /// Reads and checks a rules file; an error names the file, line and column.
    static func rules(_ file: URL) throws -> DatabaseRules {
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw CLIError("cannot read the database rules \(file.path): \(error.localizedDescription)")
        }
        do {
            return try DatabaseRules(text: text)
        } catch {
            throw CLIError("\(file.path):\(error)")
        }
    }

    /// Publishes the config file's template when the emulator has none yet.
    static func apply(_ config: FirebaseConfig, to emulator: Emulator) async throws {
        guard let templateFile = config.remoteConfigTemplate, emulator.remoteConfig.latestVersion() == 0 else { return }
        let template: RemoteConfigTemplate
        do {
            template = try RemoteConfigTemplate.decode(from: Data(contentsOf: templateFile))
        } catch {
            throw CLIError("cannot read the Remote Config template \(templateFile.path): \(error)")
        }
        do {
            try await emulator.remoteConfig.publish(template, ifMatch: "*")
        } catch {
            throw CLIError("the Remote Config template \(templateFile.path) is invalid: \(error)")
        }
    }
}

/// A failure the CLI reports as one line on stderr with a non-zero exit.
struct CLIError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
