import ArgumentParser
import CloudFunctions
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// `functions deploy`: builds the functions package and reads its manifest; then deploys it to
/// a running emulator (which starts and supervises the worker and routes events to it), or
/// writes what deploys it to Cloud Run with Eventarc or to Knative.
struct Deploy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy",
        abstract: "Build the functions package and deploy it to a running emulator, Cloud Run or Knative.",
        discussion: """
            Builds the package, asks its executable for the manifest (FUNCTIONS_MANIFEST_OUTPUT_PATH), and \
            with --target emulator (the default) registers it with the emulator, which starts the worker, \
            restarts it if it crashes, and delivers events to it; redeploying replaces the previous \
            deployment without losing events. With --target cloud-run or knative nothing is deployed: it \
            writes a Dockerfile for the package and either a script of gcloud commands (one Cloud Run \
            service and one Eventarc trigger per function) or Knative Service and Trigger YAML, into --out, \
            for you to review and run (--dry-run prints them instead).
            """
    )

    /// Where the functions go.
    enum Target: String, ExpressibleByArgument, CaseIterable {
        case emulator
        case cloudRun = "cloud-run"
        case knative
    }

    @Option(help: "The functions package.")
    var source = "functions"

    @Option(help: "The executable product to deploy (default: the package's only executable).")
    var product: String?

    @Option(help: "The build configuration: release or debug.")
    var configuration = "release"

    @Option(name: .customLong("scratch-path"), help: """
        The build folder (default: the package's own .build). Give the root package's .build to reuse \
        what it already compiled.
        """)
    var scratchPath: String?

    @Option(help: "Deploy only these functions (comma-separated).")
    var only: String?

    @Option(help: "Where to deploy: emulator, cloud-run or knative.")
    var target: Target = .emulator

    @Option(help: "cloud-run, knative: the folder the files are written to (default: .functions/TARGET).")
    var out: String?

    @Flag(name: .customLong("dry-run"), help: "cloud-run, knative: print the files instead of writing them.")
    var dryRun = false

    @Option(help: "cloud-run, knative: read the functions from this manifest (JSON) instead of building the package for it.")
    var manifest: String?

    @Option(help: """
        cloud-run, knative: the image to build and run (default for cloud-run: \
        REGION-docker.pkg.dev/PROJECT/functions/PRODUCT:latest).
        """)
    var image: String?

    @Option(name: .customLong("swift-image"), help: "cloud-run, knative: the Swift image the Dockerfile builds in (default: swift:X.Y-noble of this toolchain).")
    var swiftImage: String?

    @Option(name: .customLong("service-account"), help: "cloud-run: the service account Eventarc invokes the services as.")
    var serviceAccount: String?

    @Option(name: .customLong("dead-letter-topic"), help: "cloud-run: the Pub/Sub topic events go to after their last attempt.")
    var deadLetterTopic: String?

    @Option(name: .customLong("run-as"), help: """
        cloud-run: the service account the functions run as, whose roles their Firebase calls use (default: \
        functions-runtime@PROJECT.iam.gserviceaccount.com, created when missing). knative: the Kubernetes \
        service account the pods run as, bound to a Google service account through Workload Identity.
        """)
    var runAs: String?

    @Option(name: .customLong("key-secret"), help: """
        knative: the Kubernetes Secret holding a service account key as key.json, mounted for the \
        functions' Firebase calls (GOOGLE_APPLICATION_CREDENTIALS).
        """)
    var keySecret: String?

    @Option(name: .customLong("database-url"), help: """
        cloud-run, knative: the Realtime Database the functions reach (FIREBASE_CONFIG's databaseURL; default: \
        the instance firebase.json names, else https://PROJECT-default-rtdb.firebaseio.com).
        """)
    var databaseURL: String?

    @Option(help: "knative: the broker the Triggers subscribe to.")
    var broker: String?

    @Option(name: .customLong("dead-letter-sink"), help: "knative: the URI events go to after their last attempt.")
    var deadLetterSink: String?

    @OptionGroup var connection: EmulatorOptions

    func validate() throws {
        guard ["release", "debug"].contains(configuration) else {
            throw ValidationError("--configuration must be release or debug, not '\(configuration)'")
        }
        let onlyFor: [(String, Any?, Target)] = [
            ("--service-account", serviceAccount, .cloudRun), ("--dead-letter-topic", deadLetterTopic, .cloudRun),
            ("--broker", broker, .knative), ("--dead-letter-sink", deadLetterSink, .knative),
            ("--key-secret", keySecret, .knative),
        ]
        for (flag, value, only) in onlyFor where value != nil && target != only {
            throw ValidationError("\(flag) is for --target \(only.rawValue)")
        }
        if target == .emulator {
            for (flag, given) in [("--out", out != nil), ("--dry-run", dryRun), ("--image", image != nil),
                ("--swift-image", swiftImage != nil), ("--manifest", manifest != nil), ("--run-as", runAs != nil),
                ("--database-url", databaseURL != nil)] where given
            {
                throw ValidationError("\(flag) is for --target cloud-run or knative")
            }
        }
        if target == .knative, image == nil {
            throw ValidationError("--target knative needs --image: the image the cluster pulls (build it with the Dockerfile written)")
        }
        if let sink = deadLetterSink, URL(string: sink).map({ ["http", "https"].contains($0.scheme ?? "") && $0.host != nil }) != true {
            throw ValidationError("--dead-letter-sink must be an http(s) URI, not '\(sink)'")
        }
        if let databaseURL, URL(string: databaseURL).map({ ["http", "https"].contains($0.scheme ?? "") && $0.host != nil }) != true
            || databaseURL.contains(where: { $0.isWhitespace || "\"'$`\\|{}".contains($0) })
        {
            throw ValidationError("--database-url must be an http(s) URL, such as https://NAME.firebaseio.com, not '\(databaseURL)'")
        }
        if target == .knative, let runAs, !Self.isKubernetesName(runAs) {
            throw ValidationError("--run-as must be a Kubernetes service account name for --target knative, not '\(runAs)'")
        }
        if target == .cloudRun, let runAs,
            runAs.split(separator: "@").count != 2 || runAs.contains(where: { $0.isWhitespace || "\"'$`\\{}|".contains($0) })
        {
            throw ValidationError("--run-as must be a service account's e-mail address for --target cloud-run, not '\(runAs)'")
        }
        if let keySecret, !Self.isKubernetesName(keySecret) {
            throw ValidationError("--key-secret must be a Kubernetes Secret's name, not '\(keySecret)'")
        }
        if keySecret != nil, runAs != nil {
            throw ValidationError("--key-secret and --run-as are two ways to give the functions credentials: pick one")
        }
        if let broker, !Self.isKubernetesName(broker) {
            throw ValidationError("--broker must be a Kubernetes name (lowercase letters, digits, hyphens), not '\(broker)'")
        }
        for (flag, value) in [("--image", image), ("--swift-image", swiftImage)] {
            if let value, value.isEmpty || value.contains(where: { $0.isWhitespace || $0 == "'" || $0 == "\"" }) {
                throw ValidationError("\(flag) must be an image reference, not '\(value)'")
            }
        }
    }

    @Flag(help: """
        emulator: after deploying, watch the package (Package.swift, Sources/, the .env files and .secret.local) \
        and build and deploy again on every change; a build that fails leaves the deployment serving. Stop with Ctrl-C.
        """)
    var watch = false

    func run() async throws {
        let package = try packageFolder()
        if watch {
            guard target == .emulator else { throw ValidationError("--watch is for --target emulator") }
            let api = try connection.client()
            let watcher = PackageWatcher(deploy: self, package: package) { api }
            try await ServiceGroup(configuration: .init(services: [watcher], gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "functions.watch"))).run()
            return
        }
        let description = try Self.describe(package, scratch: scratchArguments)
        let productName = try product ?? Self.executableProduct(in: description, package: package)
        let manifest: JSONValue
        // The built executable; none when the manifest is given.
        var binary: URL?
        if let given = self.manifest {
            do {
                manifest = try JSONValue(parsing: Data(contentsOf: URL(fileURLWithPath: given)))
            } catch {
                throw CLIError("cannot read the manifest \(given): \(error)")
            }
        } else {
            let built = try await build(package, product: productName)
            binary = built.binary
            manifest = built.manifest
        }
        let (parsed, environment) = try prepared(manifest, package: package)

        guard target == .emulator else {
            let dependencies = (description["dependencies"]?.arrayValue ?? [])
                .filter { $0["type"] == "fileSystem" }.compactMap { $0["path"]?.stringValue }.map(URL.init(fileURLWithPath:))
            let image = ContainerImage(
                context: ContainerImage.context(package: package, dependencyPaths: dependencies),
                package: package,
                product: productName,
                builderImage: try swiftImage ?? Self.toolchainImage()
            )
            let functions = try DeployableFunction.all(in: parsed, only: selected)
            try write(try containerFiles(functions, image: image, environment: environment))
            let blocking = functions.filter { if case .blocking = $0.kind { true } else { false } }.map(\.name)
            if !blocking.isEmpty {
                status("blocking functions (\(blocking.joined(separator: ", "))) run only once Identity Platform is told "
                    + "to call them: " + (target == .cloudRun ? "deploy.sh prints the command with their URLs"
                        : "register each service's URL in the project's Identity Platform settings (blockingFunctions.triggers)"))
            }
            return
        }
        guard let binary else { throw ValidationError("--manifest is for --target cloud-run or knative") }
        let lines = try await deployToEmulator(binary: binary, manifest: manifest, parsed: parsed,
            environment: environment, package: package, api: try connection.client())
        for line in lines { print(line) }
    }

    /// The functions package, which must hold a `Package.swift`.
    func packageFolder() throws -> URL {
        let package = URL(fileURLWithPath: source).standardizedFileURL
        guard FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path) else {
            throw CLIError("no Swift package at \(package.path) (expected \(source)/Package.swift)")
        }
        return package
    }

    /// `--scratch-path` as `swift` arguments.
    var scratchArguments: [String] {
        scratchPath.map { ["--scratch-path", URL(fileURLWithPath: $0).standardizedFileURL.path] } ?? []
    }

    /// The functions of `--only`, if given.
    var selected: [String]? {
        only.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// The arguments of `swift` that build the package in `--configuration`.
    func buildArguments(_ package: URL) -> [String] {
        ["build", "-c", configuration, "--package-path", package.path] + scratchArguments
    }

    /// Builds `product`, the compiler's output streaming to standard error, and asks the built
    /// executable for its manifest.
    func build(_ package: URL, product productName: String) async throws -> (binary: URL, manifest: JSONValue) {
        status("building \(source) (\(productName), \(configuration))…")
        let arguments = buildArguments(package) + ["--product", productName]
        let (exitStatus, _) = try await Self.buildPlanningAgainIfStale(arguments) { try Self.runStreaming("swift", $0) }
        guard exitStatus == 0 else { throw CLIError("swift \(arguments.joined(separator: " ")) failed (exit \(exitStatus))") }
        return try built(package, product: productName)
    }

    /// Runs `swift` with the build `arguments` through `run`: its exit status and output. When
    /// the build folder's cached plan was made for another package (SwiftPM keeps one per
    /// folder: a `--scratch-path` shared with another package can hold the other's), the build
    /// is planned again once.
    static func buildPlanningAgainIfStale(
        _ arguments: [String], _ run: ([String]) async throws -> (Int32, String)
    ) async throws -> (Int32, String) {
        let first = try await run(arguments)
        guard first.0 != 0, first.1.contains("No target named"), first.1.contains("in build description") else { return first }
        status("the build folder's cached plan is another package's: planning the build again")
        return try await run(arguments + ["--disable-build-manifest-caching"])
    }

    /// The executable product to build: `--product`, else the package's only executable.
    func productName(_ package: URL) throws -> String {
        try product ?? Self.executableProduct(in: Self.describe(package, scratch: scratchArguments), package: package)
    }

    /// Runs a command whose standard output and error are read together, each piece handed to
    /// `echo` as it comes: its exit status and all it wrote. `process` gets the process before
    /// it starts (to terminate it).
    static func runMerged(
        _ command: String, _ arguments: [String], process: (Process) -> Void = { _ in }, echo: (Data) -> Void = { _ in }
    ) throws -> (Int32, String) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        child.arguments = [command] + arguments
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        process(child)
        try child.run()
        var kept = Data()
        while case let data = output.fileHandleForReading.availableData, !data.isEmpty {
            echo(data)
            kept.append(data)
        }
        child.waitUntilExit()
        return (child.terminationStatus, String(decoding: kept, as: UTF8.self))
    }

    /// ``runMerged(_:_:process:echo:)`` with the output going to standard error as it comes.
    static func runStreaming(_ command: String, _ arguments: [String]) throws -> (Int32, String) {
        try runMerged(command, arguments, echo: { try? FileHandle.standardError.write(contentsOf: $0) })
    }

    /// The built executable of `product` and the manifest it writes.
    func built(_ package: URL, product productName: String) throws -> (binary: URL, manifest: JSONValue) {
        let binDirectory = try Self.run("swift", buildArguments(package) + ["--show-bin-path"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let built = URL(fileURLWithPath: binDirectory).appendingPathComponent(productName)
        let manifestFile = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: manifestFile) }
        try Self.run(built.path, [], environment: ["FUNCTIONS_MANIFEST_OUTPUT_PATH": manifestFile.path])
        let manifest = try JSONValue(parsing: Data(contentsOf: manifestFile))
        let names = manifest["endpoints"]?.objectValue?.keys.sorted() ?? []
        status("found \(names.count) functions: \(names.joined(separator: ", "))")
        return (built, manifest)
    }

    /// The manifest as the deploy reads it, and the functions' environment (see
    /// ``resolvedEnvironment(_:package:)``).
    func prepared(_ manifest: JSONValue, package: URL) throws -> (FunctionsManifest, [String: String]) {
        let parsed = try parse(manifest)
        return (parsed, try resolvedEnvironment(parsed, package: package))
    }

    /// The manifest as the deploy reads it.
    func parse(_ manifest: JSONValue) throws -> FunctionsManifest {
        do {
            return try FunctionsManifest(json: manifest.serializedData())
        } catch {
            throw CLIError("the manifest is not valid: \(error)")
        }
    }

    /// Deploys a built binary to the emulator at `api`, with its environment and the secrets its
    /// functions read; the lines saying where each function answers.
    func deployToEmulator(
        binary: URL, manifest: JSONValue, parsed: FunctionsManifest, environment: [String: String], package: URL,
        api: EmulatorAPI, debug: String? = nil
    ) async throws -> [String] {
        status("deploying to \(api.base.absoluteString)…")
        var body: [String: JSONValue] = [
            "binary": .string(binary.path), "manifest": manifest,
            "environment": .object(environment.mapValues(JSONValue.string)),
        ]
        if let debug { body["debug"] = .string(debug) }
        if let selected {
            let names = selected.filter { !$0.isEmpty }
            guard !names.isEmpty else { throw ValidationError("--only takes function names (a,b,...)") }
            body["only"] = .array(names.map(JSONValue.string))
        }
        // The secrets the deployed functions read, from .secret.local: never printed.
        let secretNames = parsed.endpoints.filter { selected?.contains($0.key) ?? true }.values
            .flatMap { $0.secretEnvironmentVariables.map(\.secretName) }
        let secrets = try FunctionsEnvironment.localSecrets(Array(Set(secretNames)).sorted(), package: package, shownAs: source)
        if !secrets.isEmpty { body["secrets"] = .object(secrets.mapValues(JSONValue.string)) }
        let answer = try await api.send("POST", api.emulatorPath("/deployments"), json: .object(body), timeout: 120)
            .json()
        let functions = answer["functions"]?.objectValue ?? [:]
        var lines = ["deployed " + functions.keys.sorted().map { name in
            let urls = functions[name]?["instances"]?.arrayValue?.compactMap { $0["url"]?.stringValue } ?? []
            return "\(name) (\(urls.joined(separator: ", ")))"
        }.joined(separator: ", ")]
        for name in functions.keys.sorted() {
            guard let kind = functions[name]?["kind"]?.stringValue else { continue }
            let url = functions[name]?["url"]?.stringValue ?? (kind == "taskQueue"
                ? "dispatched from its queue (CLOUD_TASKS_EMULATOR_HOST=\(api.base.host ?? "127.0.0.1"):\(api.base.port ?? 80))"
                : "called by Authentication on sign-up and sign-in")
            lines.append("  \(name) (\(kind)): \(url)")
        }
        if let skipped = answer["skipped"]?.arrayValue, !skipped.isEmpty {
            lines.append("not served by the emulator (a trigger of a kind this runtime does not know): "
                + skipped.compactMap(\.stringValue).joined(separator: ", "))
        }
        return lines
    }

    /// The functions' environment from the package's `.env` files and the manifest's params
    /// (`.env.local` too for the emulator).
    func resolvedEnvironment(_ manifest: FunctionsManifest, package: URL) throws -> [String: String] {
        let project = target == .emulator ? (connection.project ?? ProcessInfo.processInfo.environment["GCLOUD_PROJECT"]
            ?? "demo-project") : cloudProject
        let environment = try FunctionsEnvironment.load(package: package, shownAs: source, project: project,
            emulator: target == .emulator)
        let files = "\(source)/.env" + (project.map { " (or .env.\($0)" + (target == .emulator ? ", or .env.local" : "") + ")" } ?? "")
        let resolved = try environment.resolving(manifest.params, files: files)
        if !manifest.params.isEmpty {
            let shown = manifest.params.filter { $0.type != .secret }.map(\.name)
            if !shown.isEmpty { status("params: " + shown.map { "\($0)=\(resolved[$0] ?? "")" }.joined(separator: ", ")) }
        }
        return resolved
    }

    /// Whether `name` is a Kubernetes object name: lowercase letters, digits and hyphens.
    static func isKubernetesName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
    }

    /// The Realtime Database URL for the functions: `--database-url`, else the instance a
    /// `firebase.json` in the current folder names (`database.instance`, at `firebaseio.com`,
    /// where instances in us-central1 are: others need `--database-url`), else `nil` (the
    /// project's default instance).
    func databaseURLForFunctions() throws -> String? {
        if let databaseURL { return databaseURL }
        let file = URL(fileURLWithPath: "firebase.json")
        guard FileManager.default.fileExists(atPath: file.path),
            let instance = try FirebaseConfig(contentsOf: file).databaseInstance
        else { return nil }
        let url = "https://\(instance).firebaseio.com"
        status("the functions' database: \(url), the instance firebase.json names (an instance outside us-central1 "
            + "needs --database-url https://\(instance).REGION.firebasedatabase.app)")
        return url
    }

    /// The real Google Cloud project the files are for: `--project`, else `GOOGLE_CLOUD_PROJECT`
    /// or `GCLOUD_PROJECT`; `nil` when none is given or it is an emulator's `demo-` one.
    var cloudProject: String? {
        let environment = ProcessInfo.processInfo.environment
        let project = connection.project ?? environment["GOOGLE_CLOUD_PROJECT"] ?? environment["GCLOUD_PROJECT"]
        return project.flatMap { $0.isEmpty || $0.hasPrefix("demo-") ? nil : $0 }
    }

    /// The files that deploy the package to a container platform, by name; throws before
    /// anything is written when a function cannot be expressed there.
    func containerFiles(_ functions: [DeployableFunction], image container: ContainerImage, environment: [String: String])
        throws -> [(String, String)]
    {
        let command = "functions deploy --target \(target.rawValue)"
        var files = [
            ("Dockerfile", container.dockerfile(generatedBy: command)),
            ("Dockerfile.dockerignore", ContainerImage.dockerignore),
        ]
        switch target {
        case .cloudRun:
            guard let project = cloudProject else {
                throw CLIError("--target cloud-run needs your Google Cloud project: give --project (or set GOOGLE_CLOUD_PROJECT)")
            }
            let region = functions[0].region
            let cloudRun = CloudRunTarget(
                functions: functions,
                project: project,
                image: image ?? "\(region)-docker.pkg.dev/\(project)/functions/\(container.product.lowercased()):latest",
                serviceAccount: serviceAccount,
                deadLetterTopic: deadLetterTopic,
                runtimeAccount: runAs,
                databaseURL: try databaseURLForFunctions(),
                environment: environment
            )
            files.append(("deploy.sh", try cloudRun.script(image: container, generatedBy: command)))
            for warning in cloudRun.warnings { status("warning: " + warning) }
            status("the functions run as \(cloudRun.runtimeAccountAddress); deploy.sh grants it the roles their "
                + "Firebase calls need (declare them with .uses(...) to grant fewer):")
            for line in cloudRun.bindingLines(account: cloudRun.runtimeAccountAddress) { status("  " + line) }
        case .knative:
            let project = cloudProject
            let checksTokens = functions.filter {
                switch $0.kind {
                case .callable, .blocking: true
                default: false
                }
            }
            if project == nil, let first = checksTokens.first {
                throw CLIError("--target knative: '\(first.name)' checks the ID tokens of your Firebase project: "
                    + "give --project (or set GOOGLE_CLOUD_PROJECT)")
            }
            let databaseURL = try databaseURLForFunctions() ?? project.map { "https://\($0)-default-rtdb.firebaseio.com" }
            let knative = KnativeTarget(
                functions: functions, image: image ?? "", broker: broker ?? "default", deadLetterSink: deadLetterSink,
                project: project, databaseURL: databaseURL, serviceAccountName: runAs, keySecret: keySecret,
                environment: environment
            )
            files += try knative.documents()
            for warning in knative.warnings { status("warning: " + warning) }
        case .emulator:
            break
        }
        return files
    }

    /// Prints the files (`--dry-run`), or writes them into `--out` all at once: into a new
    /// folder beside it that then takes its place, so a failure leaves the old files whole.
    func write(_ files: [(String, String)]) throws {
        let folder = URL(fileURLWithPath: out ?? ".functions/\(target.rawValue)").standardizedFileURL
        if dryRun {
            for (name, text) in files {
                print("==> \(folder.appendingPathComponent(name).path)")
                print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
            }
            return
        }
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIError("--out \(folder.path) is a file, not a folder") }
            let ours = Set(files.map(\.0) + ["Dockerfile", "Dockerfile.dockerignore", "deploy.sh"])
            let foreign = try manager.contentsOfDirectory(atPath: folder.path)
                .filter { !ours.contains($0) && !$0.hasSuffix(".yaml") }
            guard foreign.isEmpty else {
                throw CLIError("--out \(folder.path) holds files this command did not write (\(foreign.sorted().joined(separator: ", "))); "
                    + "give an empty or new folder")
            }
        }
        let parent = folder.deletingLastPathComponent()
        try manager.createDirectory(at: parent, withIntermediateDirectories: true)
        let staging = parent.appendingPathComponent(".\(folder.lastPathComponent).\(UUID().uuidString)")
        try manager.createDirectory(at: staging, withIntermediateDirectories: false)
        do {
            for (name, text) in files {
                let file = staging.appendingPathComponent(name)
                try Data(text.utf8).write(to: file)
                if name.hasSuffix(".sh") { try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path) }
            }
            if manager.fileExists(atPath: folder.path) {
                // The old folder steps aside until the new one is in place, then goes.
                let old = parent.appendingPathComponent(".\(folder.lastPathComponent).old.\(UUID().uuidString)")
                try manager.moveItem(at: folder, to: old)
                do {
                    try manager.moveItem(at: staging, to: folder)
                } catch {
                    try? manager.moveItem(at: old, to: folder)
                    throw error
                }
                try? manager.removeItem(at: old)
            } else {
                try manager.moveItem(at: staging, to: folder)
            }
        } catch {
            try? manager.removeItem(at: staging)
            throw CLIError("cannot write \(folder.path): \(error.localizedDescription)")
        }
        for (name, _) in files { print(folder.appendingPathComponent(name).path) }
        switch target {
        case .cloudRun: print("review, then run: \(folder.appendingPathComponent("deploy.sh").path)")
        case .knative:
            print("build and push the image with the Dockerfile, then: kubectl apply -f \(folder.path)")
        case .emulator: break
        }
    }

    /// `swift package describe` of the package, as JSON.
    static func describe(_ package: URL, scratch: [String]) throws -> JSONValue {
        let text = try run("swift", ["package", "--package-path", package.path] + scratch + ["describe", "--type", "json"])
        return try JSONValue(parsing: Data(text.utf8))
    }

    /// The official Swift image of this toolchain's version, e.g. `swift:6.3-noble`.
    static func toolchainImage() throws -> String {
        let version = try run("swift", ["--version"])
        guard let range = version.range(of: #"version (\d+)\.(\d+)"#, options: .regularExpression) else {
            throw CLIError("cannot read the Swift version from `swift --version`; give --swift-image")
        }
        return "swift:" + version[range].dropFirst("version ".count) + "-noble"
    }

    static func executableProduct(in json: JSONValue, package: URL) throws -> String {
        let executables = (json["products"]?.arrayValue ?? []).filter { $0["type"]?["executable"] != nil }
            .compactMap { $0["name"]?.stringValue }
        guard executables.count == 1 else {
            throw CLIError(executables.isEmpty
                ? "\(package.path) has no executable product to deploy"
                : "\(package.path) has several executables (\(executables.joined(separator: ", "))): "
                    + "pick one with --product")
        }
        return executables[0]
    }

    /// Runs a command and returns its standard output.
    ///
    /// - Throws: ``CLIError`` with what it wrote to standard error when it fails.
    @discardableResult
    static func run(_ command: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Both outputs are read at once: one read after the other, a command that fills the
        // second pipe while the first is read would wait forever.
        let errorData = Mutex(Data())
        let errorsRead = DispatchGroup()
        errorsRead.enter()
        DispatchQueue.global().async {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            errorData.withLock { $0 = data }
            errorsRead.leave()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        errorsRead.wait()
        let errorText = String(decoding: errorData.withLock { $0 }, as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError("\(command) \(arguments.joined(separator: " ")) failed (exit \(process.terminationStatus))"
                + (errorText.isEmpty ? "" : ": " + errorText.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return String(decoding: data, as: UTF8.self)
    }
}
