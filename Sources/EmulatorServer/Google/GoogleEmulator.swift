import FirebaseHTTP
import Foundation
import FunctionsBus
import Logging
import ProcessSupport
import Subprocess
import Synchronization

#if canImport(System)
import System
#else
import SystemPackage
#endif

/// One of Google's emulators (Firestore or Pub/Sub) as a child of this emulator: started on a
/// free loopback port once something needs it, restarted (and reported) when it crashes, and
/// stopped with the emulator. Or one already running elsewhere, named by its environment
/// variable (`FIRESTORE_EMULATOR_HOST`, `PUBSUB_EMULATOR_HOST`), which is used as it is.
///
/// The child is Java, which ignores the end of its input and outlives a parent killed with
/// SIGKILL; a small shell runs it and stops it when this process's pipe to it closes, so it
/// is never orphaned.
package final class GoogleEmulator: Sendable {
    /// What it is doing.
    package enum Status: Sendable, Hashable {
        /// Not started: nothing has needed it.
        case idle
        case starting
        /// Serving at this address.
        case running(HostPort)
        /// Another process serves it at this address.
        case external(HostPort)
        /// It cannot run here, for this reason.
        case unavailable(GoogleEmulatorError)
    }

    private struct State {
        var status: Status = .idle
        var restarts = 0
        var waiters: [Int: CheckedContinuation<HostPort, any Error>] = [:]
        var nextWaiter = 0
    }

    let kind: GoogleEmulatorLaunch.Kind
    private let launch: Result<GoogleEmulatorLaunch, GoogleEmulatorError>
    /// Where the Firestore emulator POSTs trigger events, once this server listens.
    private let functionsEmulator: @Sendable () -> String?
    /// Told each time a launch serves: a restarted emulator has lost what it was told before.
    private let onServing: @Sendable (HostPort) async -> Void
    private let tasks: TaskScope
    private let logger: Logger
    private let state = Mutex(State())
    /// How long a launch may take to serve.
    static let startTimeout = Duration.seconds(60)

    init(
        kind: GoogleEmulatorLaunch.Kind, environment: [String: String], tasks: TaskScope, logger: Logger,
        functionsEmulator: @escaping @Sendable () -> String?,
        onServing: @escaping @Sendable (HostPort) async -> Void = { _ in }
    ) {
        self.onServing = onServing
        self.kind = kind
        self.tasks = tasks
        self.logger = logger
        self.functionsEmulator = functionsEmulator
        if let given = environment[kind.variable], !given.isEmpty {
            launch = .failure(GoogleEmulatorError("\(kind.variable) names it"))
            if let address = HostPort(parsing: given) {
                state.withLock { $0.status = .external(address) }
            } else {
                state.withLock { $0.status = .unavailable(GoogleEmulatorError("\(kind.variable)='\(given)' is not host:port")) }
            }
        } else {
            launch = GoogleEmulatorLaunch.find(kind, environment: environment)
        }
    }

    /// What it is doing now.
    package var status: Status { state.withLock { $0.status } }

    /// How often it was restarted after a crash.
    package var restarts: Int { state.withLock { $0.restarts } }

    /// Starts it unless it runs (or is starting, or runs elsewhere); returns its address once
    /// it serves.
    ///
    /// - Throws: ``GoogleEmulatorError`` when it cannot run here (no Java, not installed, it
    ///   fails to start); `CancellationError` when the caller is cancelled.
    @discardableResult
    package func start() async throws -> HostPort {
        let launch: GoogleEmulatorLaunch?
        switch (status, self.launch) {
        case (.running(let address), _), (.external(let address), _): return address
        case (.unavailable(let error), _): throw error
        case (.idle, .failure(let error)):
            state.withLock { $0.status = .unavailable(error) }
            throw error
        case (.idle, .success(let found)): launch = found
        case (.starting, _): launch = nil
        }
        if let launch {
            state.withLock { state in
                guard case .idle = state.status else { return }
                state.status = .starting
                // Asked after the emulator stopped, it will not start: say so rather than
                // leave the caller waiting.
                if tasks.spawnIfRunning({ _ in await self.supervise(launch) }) == nil {
                    state.status = .unavailable(GoogleEmulatorError("the \(kind.displayName) is not started: "
                        + "this emulator is stopping"))
                }
            }
        }
        return try await address()
    }

    /// Its address, once it serves.
    func address() async throws -> HostPort {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now = state.withLock { state -> Result<HostPort, any Error>? in
                    switch state.status {
                    case .running(let address), .external(let address): return .success(address)
                    case .unavailable(let error): return .failure(error)
                    case .idle: return .failure(GoogleEmulatorError("the \(kind.displayName) is not started"))
                    case .starting:
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waiters[id] = continuation
                        return nil
                    }
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Runs the emulator until cancelled: launch, wait until it serves, and launch again when
    /// it exits (on a new port when it could not bind its own).
    private func supervise(_ launch: GoogleEmulatorLaunch) async {
        // Ended by the emulator's shutdown (or never run, the scope finished): nobody waits on.
        defer {
            if case .starting = status { settle(.unavailable(GoogleEmulatorError("the \(kind.displayName) was stopped")),
                with: .failure(GoogleEmulatorError("the \(kind.displayName) was stopped"))) }
        }
        let options = PlatformOptions.supervisedChild
        var failuresBeforeReady = 0
        while !Task.isCancelled {
            guard let port = FreePort.find() else {
                fail(GoogleEmulatorError("the \(kind.displayName) could not get a free port on 127.0.0.1"))
                return
            }
            let command = launch.command(port: port, functionsEmulator: kind == .firestore ? functionsEmulator() : nil)
            let outcome = GoogleEmulatorOutput()
            let status: String
            do {
                let result = try await run(
                    .path("/bin/sh"), arguments: Arguments(["-c", Self.watchdog, "sh", launch.java] + command),
                    platformOptions: options, input: .inputWriter, output: .sequence, error: .sequence
                ) { execution in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await buffer in execution.standardOutput {
                                buffer.withUnsafeBytes { outcome.received($0) }
                            }
                        }
                        group.addTask {
                            for try await buffer in execution.standardError {
                                buffer.withUnsafeBytes { outcome.received($0) }
                            }
                        }
                        group.addTask {
                            try await self.waitUntilServing(port: port, output: outcome)
                            let address = HostPort(host: "127.0.0.1", port: port)
                            await self.onServing(address)
                            self.serving(address)
                        }
                        try await group.waitForAll()
                    }
                }
                status = switch result.terminationStatus {
                case .exited(let code): "exited with status \(code)"
                case .signaled(let signal): "was killed by signal \(signal)"
                }
            } catch let error as GoogleEmulatorError {
                status = error.message
            } catch is CancellationError {
                return
            } catch {
                status = "could not be run: \(error)"
            }
            if Task.isCancelled { return }
            let wasServing = state.withLock { state -> Bool in
                guard case .running = state.status else { return false }
                state.status = .starting
                state.restarts += 1
                return true
            }
            if wasServing {
                logger.warning("the \(kind.displayName) \(status); restarting it")
                failuresBeforeReady = 0
            } else {
                failuresBeforeReady += 1
                // A port another process took is worth more tries (ten); anything else three.
                if failuresBeforeReady >= (outcome.bindFailed ? 10 : 3) {
                    fail(GoogleEmulatorError("the \(kind.displayName) \(status) before it served: \(outcome.tail)"))
                    return
                }
            }
            try? await Task.sleep(for: .milliseconds(250 * min(failuresBeforeReady + 1, 20)))
        }
    }

    /// Polls `GET /` once the ready line is out (both emulators answer `Ok`); throws when the
    /// launch fails to bind its port or takes longer than ``startTimeout``.
    private func waitUntilServing(port: Int, output: GoogleEmulatorOutput) async throws {
        let deadline = ContinuousClock.now + Self.startTimeout
        let url = URL(string: "http://127.0.0.1:\(port)/")!
        while ContinuousClock.now < deadline {
            if output.bindFailed { throw GoogleEmulatorError("could not bind port \(port)") }
            if output.ready, let answer = try? await HTTPExchange.send("GET", url, timeout: .seconds(2)), answer.status == 200 {
                return
            }
            try await Task.sleep(for: .milliseconds(output.ready ? 20 : 100))
        }
        throw GoogleEmulatorError("did not serve within \(Self.startTimeout)")
    }

    private func serving(_ address: HostPort) {
        logger.info("the \(kind.displayName) serves at \(address)")
        settle(.running(address), with: .success(address))
    }

    private func fail(_ error: GoogleEmulatorError) {
        logger.warning("\(error.message)")
        settle(.unavailable(error), with: .failure(error))
    }

    /// Sets the status, and answers those waiting for the address.
    private func settle(_ status: Status, with outcome: Result<HostPort, any Error>) {
        let waiters = state.withLock { state in
            state.status = status
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }

    /// Runs `"$@"` and stops it when this process's pipe on standard input closes (the emulator
    /// ended, however), or on SIGTERM or SIGINT; exits with its status.
    ///
    /// The watcher lives as long as the shell, so that ending it never signals a process id
    /// free for reuse; a `wait` cut short by a trapped signal is waited again until the child
    /// has ended; and the traps are cleared before the child's id may be reused.
    static let watchdog = """
        exec 3<&0
        "$@" </dev/null &
        child=$!
        interrupted=
        trap 'interrupted=1; kill -TERM "$child" 2>/dev/null' TERM INT
        ( read -r _ <&3; kill -TERM "$child" 2>/dev/null; while kill -0 $$ 2>/dev/null; do sleep 1; done ) &
        watcher=$!
        wait "$child"; status=$?
        while [ -n "$interrupted" ]; do interrupted=; wait "$child"; again=$?; [ "$again" -ne 127 ] && status=$again; done
        trap '' TERM INT
        kill "$watcher" 2>/dev/null
        exit "$status"
        """
}

/// What a launch printed: whether it is ready or could not bind, and the tail to explain a failure.
final class GoogleEmulatorOutput: Sendable {
    private struct State {
        var tail: [UInt8] = []
        var ready = false
        var bindFailed = false
    }

    private let state = Mutex(State())

    var ready: Bool { state.withLock { $0.ready } }
    var bindFailed: Bool { state.withLock { $0.bindFailed } }
    var tail: String {
        String(String(decoding: state.withLock { $0.tail }, as: UTF8.self).suffix(1000))
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func received(_ bytes: UnsafeRawBufferPointer) {
        state.withLock { state in
            state.tail.append(contentsOf: bytes)
            if state.tail.count > 8192 { state.tail.removeFirst(state.tail.count - 8192) }
            let text = String(decoding: state.tail, as: UTF8.self)
            // Firestore: "Dev App Server is now running."; Pub/Sub: "Server started, listening on N".
            if text.contains("Dev App Server is now running") || text.contains("Server started, listening on") {
                state.ready = true
            }
            if text.contains("BindException") { state.bindFailed = true }
        }
    }
}
