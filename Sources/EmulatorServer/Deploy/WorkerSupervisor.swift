import CloudFunctions
import Foundation
import FunctionsBus
import Logging
import Subprocess
import Synchronization

#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Runs an author's functions binary as a child process, waits for its ready line, and
/// restarts it when it exits unexpectedly. Callers wait for ``baseURL()``, which suspends
/// while the worker is starting or restarting, so events are held, not lost.
///
/// The child starts with a clean signal mask and default signal handlers (swift-subprocess
/// resets them), so any program stops on SIGTERM. Its standard input is a pipe the emulator
/// holds open and never writes: when the emulator dies, even by SIGKILL, the child reads end
/// of file, and workers built with this package exit on it. A launch that prints no
/// `ready: URL` line within ``startTimeout`` is killed; only the last 16 KiB of its output
/// (standard output and error) is kept, to explain the failure (a failed restart's too). Once
/// it is ready, each line it writes is handed to the supervisor's `onLine`.
public final class WorkerSupervisor: Sendable {
    /// What the supervisor knows about the worker.
    public enum Status: String, Sendable {
        case starting, running, restarting, stopped
    }

    /// Which of the worker's outputs a line came from.
    public enum Stream: String, Sendable {
        case output, error
    }

    /// How much of a worker's output is kept.
    static let outputLimit = 16 * 1024
    /// The longest line read whole (a structured log line with its metadata fits); longer
    /// lines are cut.
    static let lineLimit = 16 * 1024

    private struct State {
        /// Counts launches; each exit belongs to one.
        var generation = 0
        var processIdentifier: Int32?
        var url: URL?
        var status: Status = .starting
        var readyWaiters: [Int: CheckedContinuation<URL, any Error>] = [:]
        var exitWaiters: [Int: (generation: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter = 0
        var restarts = 0
        /// The end of the current launch's output, for error messages.
        var output: [UInt8] = []
        /// What an error message quotes of it: its last 2,000 characters.
        var outputTail: String { String(String(decoding: output, as: UTF8.self).suffix(2000)) }
        /// The current line of each output, until its newline arrives.
        var lines: [Stream: [UInt8]] = [:]
        /// Whether any launch reached its ready line; a binary that never does is not restarted.
        var everReady = false
        /// Why the worker stopped before it was ever ready.
        var failure: String?
        /// The supervising loop, a child of the deployments' task scope.
        var task: TaskScope.ID?
    }

    /// The binary.
    public let binary: URL
    /// How long a launch may take to print its ready line.
    public let startTimeout: Duration
    let environment: [String: String]
    let logger: Logger
    /// Where the supervising loop runs.
    let tasks: TaskScope
    /// Told each launched process id (`true`), and when that process has exited (`false`).
    let onProcessChange: @Sendable (Int32, Bool) async -> Void
    /// Told each line the worker writes once it is ready, without its newline.
    let onLine: @Sendable (String, Stream) -> Void
    private let state = Mutex(State())

    /// Creates a supervisor; call ``start()``.
    init(
        binary: URL, environment: [String: String], startTimeout: Duration = .seconds(30), logger: Logger,
        tasks: TaskScope, onProcessChange: @escaping @Sendable (Int32, Bool) async -> Void = { _, _ in },
        onLine: @escaping @Sendable (String, Stream) -> Void = { _, _ in }
    ) {
        self.binary = binary
        self.tasks = tasks
        self.environment = environment
        self.startTimeout = startTimeout
        self.logger = logger
        self.onProcessChange = onProcessChange
        self.onLine = onLine
    }

    /// The worker's status and how often it was restarted.
    public var status: (status: Status, restarts: Int, url: URL?) {
        state.withLock { ($0.status, $0.restarts, $0.url) }
    }

    /// The worker's process id, while it runs.
    public var processIdentifier: Int32? {
        state.withLock { $0.processIdentifier }
    }

    /// Launches the worker and waits until it serves.
    ///
    /// - Throws: ``WorkerError`` when the binary cannot be launched, exits before it is ready,
    ///   or prints no ready line within ``startTimeout`` (it is killed then); also when the
    ///   calling task is cancelled (the worker is stopped).
    public func start() async throws {
        state.withLock { state in
            state.task = tasks.spawn { _ in await self.supervise() }
        }
        do {
            // Every launch has its start deadline (see supervise()): a launch that misses it ends
            // this wait with the reason.
            _ = try await baseURL()
        } catch {
            await stopAndWait()
            let output = state.withLock { $0.outputTail }
            let message = (error as? WorkerError)?.message ?? "the start was abandoned"
            if output.isEmpty { throw WorkerError(message: message) }
            throw WorkerError(message: message + ": " + output)
        }
    }

    /// The worker's base URL, once it serves.
    /// Cancelling the calling task ends the wait with `CancellationError`.
    public func baseURL() async throws -> URL {
        let id = newWaiterID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<URL, any Error>? in
                    if let url = state.url, state.status == .running { return .success(url) }
                    if state.status == .stopped {
                        return .failure(WorkerError(message: state.failure ?? "the worker was stopped"))
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.readyWaiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            state.withLock { $0.readyWaiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// The worker's base URL once it serves, waiting no later than `deadline` on `clock`.
    ///
    /// - Throws: ``WorkerError`` when the deadline passes first.
    func baseURL(until deadline: Date, clock: any BusClock) async throws -> URL {
        // Nearly always the worker serves already: no waiting race to set up.
        if let url = state.withLock({ $0.status == .running ? $0.url : nil }) { return url }
        return try await withThrowingTaskGroup(of: URL.self) { group in
            group.addTask { try await self.baseURL() }
            group.addTask {
                try await clock.sleep(until: deadline)
                throw WorkerError(message: "the functions worker was not serving before the attempt's deadline")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private func newWaiterID() -> Int {
        state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
    }

    /// Whether `url` is the address of the worker process that is running now.
    func isCurrent(_ url: URL) -> Bool {
        state.withLock { $0.url == url && $0.status == .running }
    }

    /// Waits up to `grace` for the worker process at `url` to be gone (exited or replaced);
    /// false when it still runs then. A killed process is reaped a moment after its
    /// connections break.
    func hasExited(_ url: URL, grace: Duration) async -> Bool {
        guard let generation = state.withLock({ $0.url == url && $0.status == .running ? $0.generation : nil })
        else { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.exit(of: generation); return true }
            group.addTask {
                try? await Task.sleep(for: grace)
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
    }

    /// Returns once launch `generation` has exited, or when the calling task is cancelled.
    private func exit(of generation: Int) async {
        let id = newWaiterID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    guard state.generation == generation, state.processIdentifier != nil, !Task.isCancelled
                    else { return true }
                    state.exitWaiters[id] = (generation, continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.exitWaiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// Stops the worker for good: it gets SIGTERM, and SIGKILL if it still runs 5 seconds later.
    public func stop() {
        let (task, waiters) = state.withLock { state in
            state.status = .stopped
            defer { state.readyWaiters = [:] }
            return (state.task, state.readyWaiters.values)
        }
        if let task { tasks.cancel(task) }
        for waiter in waiters { waiter.resume(throwing: WorkerError(message: "the worker was stopped")) }
    }

    /// Stops the worker and waits until its process is gone.
    public func stopAndWait() async {
        stop()
        if let task = state.withLock({ $0.task }) { await tasks.wait(for: task) }
    }

    /// Launches the binary again and again until stopped, or until a launch fails before it
    /// was ever ready.
    private func supervise() async {
        let options = PlatformOptions.supervisedChild
        let environment = Environment.inherit.updating(Dictionary(uniqueKeysWithValues:
            self.environment.compactMap { key, value in Environment.Key(rawValue: key).map { ($0, value) } }))
        while !Task.isCancelled {
            let generation = state.withLock { state in
                state.generation += 1
                state.url = nil
                state.output = []
                state.lines = [:]
                if state.status != .stopped { state.status = state.restarts == 0 ? .starting : .restarting }
                return state.generation
            }
            let outcome: String
            do {
                let result = try await run(
                    .path(FilePath(binary.path)), environment: environment, platformOptions: options,
                    input: .inputWriter, output: .sequence, error: .sequence
                ) { execution in
                    await self.launched(execution.processIdentifier.value, generation: generation)
                    // Read both outputs to their end; a launch (a restart too) that is not ready by
                    // the start deadline is torn down (SIGTERM, then SIGKILL) by the error thrown.
                    try await withThrowingTaskGroup(of: Bool.self) { group in
                        group.addTask {
                            for try await buffer in execution.standardOutput {
                                buffer.withUnsafeBytes { self.received($0, from: .output, generation: generation) }
                            }
                            self.ended(.output, generation: generation)
                            return true
                        }
                        group.addTask {
                            for try await buffer in execution.standardError {
                                buffer.withUnsafeBytes { self.received($0, from: .error, generation: generation) }
                            }
                            self.ended(.error, generation: generation)
                            return true
                        }
                        group.addTask {
                            try await Task.sleep(for: self.startTimeout)
                            guard self.isReady(generation: generation) else {
                                throw WorkerError(message: "printed no 'ready: URL' line within \(self.startTimeout)")
                            }
                            return false
                        }
                        var ended = 0
                        while let outputEnded = try await group.next() {
                            if outputEnded { ended += 1 }
                            if ended == 2 {
                                group.cancelAll()
                                break
                            }
                        }
                    }
                }
                outcome = switch result.terminationStatus {
                case .exited(let code): "exited with status \(code)"
                case .signaled(let signal): "was killed by signal \(signal)"
                }
            } catch let error as WorkerError {
                outcome = error.message + "; it was stopped"
            } catch {
                outcome = "could not be run: \(error)"
            }
            guard let delay = await exited(generation: generation, outcome: outcome) else { return }
            try? await Task.sleep(for: delay)
        }
    }

    private func isReady(generation: Int) -> Bool {
        state.withLock { $0.generation == generation && $0.url != nil }
    }

    private func launched(_ processIdentifier: Int32, generation: Int) async {
        state.withLock { state in
            if state.generation == generation { state.processIdentifier = processIdentifier }
        }
        await onProcessChange(processIdentifier, true)
    }

    /// Keeps the tail of the output and looks for the ready line on standard output; the lines
    /// after it are handed to `onLine` (those before it explain a failed start).
    private func received(_ bytes: UnsafeRawBufferPointer, from stream: Stream, generation: Int) {
        var logged: [String] = []
        let waiters = state.withLock { state -> (URL, Dictionary<Int, CheckedContinuation<URL, any Error>>.Values)? in
            guard state.generation == generation else { return nil }
            if state.url == nil {
                state.output.append(contentsOf: bytes)
                if state.output.count > Self.outputLimit { state.output.removeFirst(state.output.count - Self.outputLimit) }
            }
            var ready: URL?
            var current = state.lines.removeValue(forKey: stream) ?? []
            defer { state.lines[stream] = current }
            for byte in bytes {
                guard byte == UInt8(ascii: "\n") else {
                    if current.count < Self.lineLimit { current.append(byte) }
                    continue
                }
                let line = String(decoding: current, as: UTF8.self)
                current.removeAll(keepingCapacity: true)
                if stream == .output, state.url == nil, ready == nil, line.hasPrefix("ready: "),
                    let url = URL(string: String(line.dropFirst("ready: ".count)))
                {
                    ready = url
                } else if state.url != nil || ready != nil {
                    logged.append(line)
                }
            }
            guard let ready, state.status != .stopped else { return nil }
            state.url = ready
            state.status = .running
            state.everReady = true
            state.output = []
            defer { state.readyWaiters = [:] }
            return (ready, state.readyWaiters.values)
        }
        for line in logged { onLine(line, stream) }
        if let (url, waiters) = waiters {
            for waiter in waiters { waiter.resume(returning: url) }
        }
    }

    /// Hands the last line of an output that ended without a newline to `onLine`.
    private func ended(_ stream: Stream, generation: Int) {
        let last = state.withLock { state -> [UInt8]? in
            guard state.generation == generation, let line = state.lines.removeValue(forKey: stream), !line.isEmpty
            else { return nil }
            return line
        }
        if let last { onLine(String(decoding: last, as: UTF8.self), stream) }
    }

    /// Records the end of launch `generation`: the delay before the next launch, or nil to
    /// stop (stopped, or it was never ready: restarting would only fail again).
    private func exited(generation: Int, outcome: String) async -> Duration? {
        let (delay, failed, exitWaiters, pid, unready) = state.withLock { state in
            let pid = state.processIdentifier
            // What a launch that was never ready wrote (a ready one's output is not kept).
            let unready = state.url == nil ? state.outputTail : ""
            state.processIdentifier = nil
            state.url = nil
            let exitWaiters = state.exitWaiters.filter { $0.value.generation == generation }
            for id in exitWaiters.keys { state.exitWaiters.removeValue(forKey: id) }
            guard state.status != .stopped, state.everReady else {
                if state.status != .stopped { state.failure = "\(binary.path) \(outcome) before it was ready" }
                state.status = .stopped
                defer { state.readyWaiters = [:] }
                return (Duration?.none, Array(state.readyWaiters.values), exitWaiters, pid, unready)
            }
            state.restarts += 1
            state.status = .restarting
            // A worker that keeps crashing is restarted at most every few seconds.
            return (Duration.milliseconds(min(state.restarts - 1, 20) * 250), [], exitWaiters, pid, unready)
        }
        if let pid { await onProcessChange(pid, false) }
        for waiter in exitWaiters.values { waiter.continuation.resume() }
        for waiter in failed {
            waiter.resume(throwing: WorkerError(message: "\(binary.path) \(outcome) before it was ready"))
        }
        if delay != nil {
            let output = unready.trimmingCharacters(in: .whitespacesAndNewlines)
            logger.warning("the functions worker \(outcome)\(output.isEmpty ? "" : " before it was ready: \(output)"); restarting it")
        }
        return delay
    }
}

/// The worker could not be started or reached.
public struct WorkerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    public var description: String { message }
}
