import Foundation
import Logging
import Synchronization

/// Runs an author's functions binary as a child process, waits for its ready line, and
/// restarts it when it exits unexpectedly. Callers wait for ``baseURL()``, which suspends
/// while the worker is starting or restarting, so events are held, not lost.
public final class WorkerSupervisor: Sendable {
    /// What the supervisor knows about the worker.
    public enum Status: String, Sendable {
        case starting, running, restarting, stopped
    }

    private struct State {
        var process: Process?
        var url: URL?
        var status: Status = .starting
        var waiters: [CheckedContinuation<URL, any Error>] = []
        var restarts = 0
        var output = ""
        /// Whether any launch reached its ready line; a binary that never does is not restarted.
        var everReady = false
    }

    /// The binary.
    public let binary: URL
    let environment: [String: String]
    let logger: Logger
    private let state = Mutex(State())

    /// Creates a supervisor; call ``start()``.
    public init(binary: URL, environment: [String: String], logger: Logger) {
        self.binary = binary
        self.environment = environment
        self.logger = logger
    }

    /// The worker's status and how often it was restarted.
    public var status: (status: Status, restarts: Int, url: URL?) {
        state.withLock { ($0.status, $0.restarts, $0.url) }
    }

    /// The worker's process id, while it runs.
    public var processIdentifier: Int32? {
        state.withLock { $0.process?.isRunning == true ? $0.process?.processIdentifier : nil }
    }

    /// Launches the worker and waits until it serves.
    ///
    /// - Throws: when the binary cannot be launched or exits before it is ready.
    public func start() async throws {
        try launch()
        _ = try await baseURL()
    }

    /// The worker's base URL, once it serves.
    public func baseURL() async throws -> URL {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<URL, any Error>? in
                if let url = state.url, state.status == .running { return .success(url) }
                if state.status == .stopped { return .failure(WorkerError(message: "the worker was stopped")) }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// Whether `url` is the address of the worker process that is running now.
    func isCurrent(_ url: URL) -> Bool {
        state.withLock { $0.url == url && $0.status == .running && $0.process?.isRunning == true }
    }

    /// Waits up to `grace` for the worker process at `url` to be gone (exited or replaced);
    /// false when it still runs then. A killed process is reaped a moment after its
    /// connections break.
    func hasExited(_ url: URL, grace: Duration) async -> Bool {
        let end = ContinuousClock.now + grace
        while isCurrent(url) {
            guard ContinuousClock.now < end else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Marks the worker at `url` unreachable (a delivery could not connect): later callers
    /// wait for the restart.
    func unreachable(_ url: URL) {
        state.withLock { state in
            if state.url == url, state.status == .running { state.status = .restarting }
        }
    }

    /// Stops the worker for good.
    public func stop() {
        let (process, waiters) = state.withLock { state in
            state.status = .stopped
            defer { state.waiters = [] }
            return (state.process, state.waiters)
        }
        process?.terminate()
        for waiter in waiters { waiter.resume(throwing: WorkerError(message: "the worker was stopped")) }
    }

    private func launch() throws {
        let process = Process()
        process.executableURL = binary
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            self?.received(String(decoding: data, as: UTF8.self), from: process)
        }
        process.terminationHandler = { [weak self] process in self?.exited(process) }
        state.withLock { state in
            state.process = process
            state.url = nil
            state.output = ""
            if state.status != .stopped { state.status = state.restarts == 0 ? .starting : .restarting }
        }
        do {
            try process.run()
        } catch {
            throw WorkerError(message: "cannot launch \(binary.path): \(error)")
        }
    }

    private func received(_ text: String, from process: Process) {
        let waiters = state.withLock { state -> [CheckedContinuation<URL, any Error>] in
            guard state.process === process, state.url == nil else { return [] }
            state.output += text
            guard let line = state.output.split(separator: "\n").first(where: { $0.hasPrefix("ready: ") }),
                let url = URL(string: String(line.dropFirst("ready: ".count)))
            else { return [] }
            state.url = url
            state.status = .running
            state.everReady = true
            defer { state.waiters = [] }
            return state.waiters
        }
        guard let url = waiters.isEmpty ? nil : state.withLock({ $0.url }) else { return }
        for waiter in waiters { waiter.resume(returning: url) }
    }

    private func exited(_ process: Process) {
        let (restart, failed) = state.withLock { state -> (Bool, [CheckedContinuation<URL, any Error>]) in
            guard state.process === process, state.status != .stopped else { return (false, []) }
            guard state.everReady else {
                // It never served: restarting would only fail again.
                state.status = .stopped
                defer { state.waiters = [] }
                return (false, state.waiters)
            }
            state.restarts += 1
            state.url = nil
            state.status = .restarting
            return (true, [])
        }
        let output = state.withLock { $0.output }.suffix(2000)
        for waiter in failed {
            waiter.resume(throwing: WorkerError(
                message: "\(binary.path) exited with status \(process.terminationStatus) before it was ready"
                    + (output.isEmpty ? "" : ": \(output)")
            ))
        }
        guard restart else { return }
        // A worker that keeps crashing is restarted at most every few seconds.
        let restarts = state.withLock { $0.restarts }
        Thread.sleep(forTimeInterval: min(Double(restarts - 1), 20) * 0.25)
        logger.warning(
            "the functions worker exited; restarting it", metadata: ["status": "\(process.terminationStatus)"])
        do {
            try launch()
        } catch {
            logger.error("cannot restart the functions worker", metadata: ["error": "\(error)"])
        }
    }
}

/// The worker could not be started or reached.
public struct WorkerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    public var description: String { message }
}
