import CloudFunctions
import Foundation
import ServiceLifecycle
import Synchronization

/// Watches a functions package and deploys it again whenever it changes: the author's inner
/// loop of `functions deploy --watch` and `functions emulators:start --watch`.
///
/// It looks at `Package.swift`, everything under `Sources/`, the `.env` files and
/// `.secret.local` every 200 ms. A change starts a build once nothing has changed for 300 ms,
/// so a burst of saves makes one build; saves during a build make one more after it. A
/// successful build is deployed as `functions deploy` does (the emulator swaps the workers
/// without losing an event). A failed one leaves the deployment serving: the compiler's
/// errors are printed once (a build failing the same way again says only that) and shown on
/// the console's Functions page.
struct PackageWatcher: Service {
    let deploy: Deploy
    let package: URL
    /// The emulator to deploy to, once it answers.
    let emulator: @Sendable () async throws -> EmulatorAPI

    static let pollInterval = Duration.milliseconds(200)
    static let quietPeriod = Duration.milliseconds(300)

    func run() async throws {
        do {
            let api = try await emulator()
            try await cancelWhenGracefulShutdown { try await watch(api) }
        } catch is CancellationError {
            // Ctrl-C or SIGTERM: the watcher ends, and the group stops in order.
        }
    }

    private func watch(_ api: EmulatorAPI) async throws {
        var seen = Self.snapshot(of: package)
        var lastErrors: String?
        var product = deploy.product
        var deployed = false
        await cycle(product: &product, api: api, lastErrors: &lastErrors, deployed: &deployed)
        status("watching \(deploy.source) for changes (Ctrl-C stops)")
        while !Task.isCancelled {
            try await Task.sleep(for: Self.pollInterval)
            var now = Self.snapshot(of: package)
            guard now != seen else { continue }
            repeat {
                seen = now
                try await Task.sleep(for: Self.quietPeriod)
                now = Self.snapshot(of: package)
            } while now != seen
            await cycle(product: &product, api: api, lastErrors: &lastErrors, deployed: &deployed)
        }
    }

    /// Builds and deploys once; failures are reported, never thrown.
    private func cycle(product: inout String?, api: EmulatorAPI, lastErrors: inout String?, deployed: inout Bool) async {
        let started = ContinuousClock.now
        // What serves while this build is not deployed.
        let serving = deployed ? "the previous deployment keeps serving" : "nothing of the package is deployed yet"
        await report(["state": "building"], to: api)
        do {
            if product == nil {
                // Package.swift may be broken now and mended later: asked again until it answers.
                let (deploy, package) = (deploy, package)
                product = try await Self.offloaded { try deploy.productName(package) }
            }
            guard let product else { return }
            status("building \(deploy.source) (\(product), \(deploy.configuration))…")
            let (exitStatus, output) = try await Deploy.buildPlanningAgainIfStale(
                deploy.buildArguments(package) + ["--product", product]) { try await Self.run("swift", $0) }
            guard exitStatus == 0 else { throw BuildFailure(output: output) }
            let (deploy, package) = (deploy, package)
            let built = try await Self.offloaded { try deploy.built(package, product: product) }
            let buildTime = ContinuousClock.now - started
            let (parsed, environment) = try deploy.prepared(built.manifest, package: package)
            let deployStarted = ContinuousClock.now
            let lines = try await deploy.deployToEmulator(binary: built.binary, manifest: built.manifest, parsed: parsed,
                environment: environment, package: package, api: api)
            lastErrors = nil
            deployed = true
            await report(["state": "deployed"], to: api)
            status(lines.first ?? "deployed")
            status("built in \(Self.seconds(buildTime)), deployed in \(Self.seconds(ContinuousClock.now - deployStarted))")
        } catch is CancellationError {
            return
        } catch let failure as BuildFailure {
            let errors = failure.errors
            if errors == lastErrors {
                status("the build still fails with the same errors; \(serving)")
            } else {
                status("the build failed; \(serving):")
                try? FileHandle.standardError.write(contentsOf: Data((errors + "\n").utf8))
            }
            lastErrors = errors
            await report(["state": "failed", "output": .string(errors)], to: api)
        } catch {
            // A deploy the emulator refused, a param without a value: one line, and the old deployment serves.
            status("not deployed: \(error); \(serving)")
            lastErrors = nil
            await report(["state": "failed", "output": .string("\(error)")], to: api)
        }
    }

    /// Tells the emulator how the last build went, for its console.
    private func report(_ build: [String: JSONValue], to api: EmulatorAPI) async {
        _ = try? await api.send("PUT", api.emulatorPath("/build"), json: .object(build))
    }

    /// Each watched file's modification time and size.
    static func snapshot(of package: URL) -> [String: [Double]] {
        let manager = FileManager.default
        var files = ["Package.swift", ".env", ".env.local", ".secret.local"]
        files += ((try? manager.contentsOfDirectory(atPath: package.path)) ?? []).filter { $0.hasPrefix(".env.") }
        if let sources = manager.enumerator(atPath: package.appendingPathComponent("Sources").path) {
            for case let path as String in sources { files.append("Sources/" + path) }
        }
        var snapshot: [String: [Double]] = [:]
        for file in files {
            guard let attributes = try? manager.attributesOfItem(atPath: package.appendingPathComponent(file).path),
                attributes[.type] as? FileAttributeType != .typeDirectory
            else { continue }
            snapshot[file] = [(attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0,
                Double((attributes[.size] as? NSNumber)?.intValue ?? 0)]
        }
        return snapshot
    }

    /// Runs blocking work on a thread of its own, off the cooperative pool the emulator serves on.
    static func offloaded<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result(catching: work)) }
        }
    }

    /// Runs a command (a build of minutes) with its standard output and error read together:
    /// its exit status and what it wrote. Cancelling the task terminates it.
    static func run(_ command: String, _ arguments: [String]) async throws -> (Int32, String) {
        let running = Mutex<Process?>(nil)
        let result = try await withTaskCancellationHandler {
            try await offloaded {
                try Deploy.runMerged(command, arguments, process: { process in running.withLock { $0 = process } })
            }
        } onCancel: {
            running.withLock { process in
                if let process, process.isRunning { process.terminate() }
            }
        }
        try Task.checkCancellation()
        return result
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f s", Double(seconds) + Double(attoseconds) / 1e18)
    }
}

/// A build of the functions package that failed, with what the compiler wrote.
struct BuildFailure: Error, CustomStringConvertible {
    let output: String

    /// The compiler's errors, each with the source lines it quotes, each once; the end of
    /// the output when it names none (a manifest or linker failure).
    var errors: String {
        var blocks: [String] = []
        var current: [String]?
        for line in output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.contains(": error: ") {
                if let current { blocks.append(current.joined(separator: "\n")) }
                current = [line]
            } else if current != nil, line.hasPrefix(" ") || line.hasPrefix("|") || line.first?.isNumber == true {
                current?.append(line)
            } else if let block = current {
                blocks.append(block.joined(separator: "\n"))
                current = nil
            }
        }
        if let current { blocks.append(current.joined(separator: "\n")) }
        var unique: [String] = []
        for block in blocks where !unique.contains(block) { unique.append(block) }
        if unique.isEmpty { return output.split(separator: "\n").suffix(20).joined(separator: "\n") }
        return unique.joined(separator: "\n")
    }

    var description: String { errors }
}
