import CloudFunctions
import Foundation
import Synchronization
import Tracing

/// Coalesces the database reads of a functions binary's concurrent handlers into fewer HTTP
/// requests to the emulator.
///
/// A read sent while no other is on its way goes alone, as the ordinary REST `GET`. Reads made
/// while one is on its way wait for it, and then go together in one
/// `POST /emulator/v1/databases/{namespace}:batchGet`: under load, one exchange serves many
/// handlers (each read's answer is still the value when the emulator read it, with its ETag),
/// and a lone read is never held back. A batch that fails as a whole (no answer, too large an
/// answer, a 5xx) is sent again read by read, so a read fails only for a reason of its own. A
/// server that refuses the route (404, or 401/403 for a credential it does not take as the
/// owner's) gets each read alone, at once, from then on. A waiting read whose task is
/// cancelled (its handler timed out) ends at once with `CancellationError`.
final class DatabaseReadBatcher: Sendable {
    /// One read and who waits for it, answered once: by its result, or by its cancellation.
    private final class Waiter: Sendable {
        let read: Read
        /// The trace the read was made in (when the process traces): a read sent alone goes in
        /// it, not in the trace of whichever handler's task sends it.
        let context: ServiceContext?
        private let state = Mutex<(continuation: CheckedContinuation<VersionedValue, any Error>?, answered: Bool)>(
            (nil, false))

        init(read: Read) {
            self.read = read
            context = HTTPExchange.traces ? ServiceContext.current : nil
        }

        /// Sets who waits; resumed at once when the read was cancelled before.
        ///
        /// - Returns: whether the read still waits (it was not cancelled before).
        func wait(_ continuation: CheckedContinuation<VersionedValue, any Error>) -> Bool {
            let answered = state.withLock { state -> Bool in
                if !state.answered { state.continuation = continuation }
                return state.answered
            }
            if answered { continuation.resume(throwing: CancellationError()) }
            return !answered
        }

        /// Whether the read has had its answer (or its cancellation).
        var isAnswered: Bool { state.withLock { $0.answered } }

        /// Answers the read; only the first answer counts.
        func resume(with result: Result<VersionedValue, any Error>) {
            let continuation = state.withLock { state in
                defer { state = (nil, true) }
                return state.continuation
            }
            continuation?.resume(with: result)
        }
    }

    /// What a read asks for: a path, and whether the ETag is wanted.
    struct Read: Sendable {
        var path: String
        var versioned: Bool
    }

    private struct State {
        /// Whether a request is on its way.
        var sending = false
        /// The reads made meanwhile, in order.
        var waiting: [Waiter] = []
        /// Set when the server refused the batch route (404, 401, 403).
        var batchesUnsupported = false
    }

    /// The most reads in one batch request.
    static let maximumBatch = 500

    private let state = Mutex(State())
    /// Sends one read alone (the REST `GET`).
    private let single: @Sendable (Read) async throws -> VersionedValue
    /// Sends reads together; answers one result per read, in order.
    private let batch: @Sendable ([Read]) async throws -> [Result<VersionedValue, AdminHTTPError>]

    init(
        single: @escaping @Sendable (Read) async throws -> VersionedValue,
        batch: @escaping @Sendable ([Read]) async throws -> [Result<VersionedValue, AdminHTTPError>]
    ) {
        self.single = single
        self.batch = batch
    }

    /// How many reads wait for the request on its way.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Reads `path`, alone or with the reads made at the same time.
    func read(_ path: String, versioned: Bool) async throws -> VersionedValue {
        let read = Read(path: path, versioned: versioned)
        enum Way { case lead, alone, wait }
        let way = state.withLock { state -> Way in
            if state.batchesUnsupported { return .alone }
            guard !state.sending else { return .wait }
            state.sending = true
            return .lead
        }
        if way == .alone { return try await single(read) }
        guard way == .lead else {
            let waiter = Waiter(read: read)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // Cancelled already: nothing to send.
                    guard waiter.wait(continuation) else { return }
                    // The request on its way may have ended meanwhile: then this read starts the next.
                    let startsBatch = state.withLock { state in
                        // Cancelled since: nothing to send either.
                        guard !waiter.isAnswered else { return false }
                        state.waiting.append(waiter)
                        guard !state.sending else { return false }
                        state.sending = true
                        return true
                    }
                    if startsBatch { Task { await self.sendWaiting() } }
                }
            } onCancel: {
                // Answered first, then taken out of the queue: a read being queued meanwhile either
                // sees it answered, or is queued before and taken out here. One already taken
                // into a batch is sent, and its answer dropped.
                waiter.resume(with: .failure(CancellationError()))
                state.withLock { $0.waiting.removeAll { $0 === waiter } }
            }
        }
        let result = await Result { try await single(read) }
        let waitsMore = state.withLock { state in
            if state.waiting.isEmpty { state.sending = false }
            return !state.waiting.isEmpty
        }
        // The reads made meanwhile go on their own task, so this handler goes on at once.
        if waitsMore { Task { await self.sendWaiting() } }
        return try result.get()
    }

    /// Sends the waiting reads, batch after batch, until none wait; called with `sending` set,
    /// which it clears when done.
    private func sendWaiting() async {
        while true {
            let (waiters, unsupported): ([Waiter], Bool) = state.withLock { state in
                let taken = Array(state.waiting.prefix(Self.maximumBatch))
                state.waiting.removeFirst(taken.count)
                if taken.isEmpty { state.sending = false }
                return (taken, state.batchesUnsupported)
            }
            if waiters.isEmpty { return }
            if waiters.count == 1 || unsupported {
                await sendAlone(waiters)
                continue
            }
            do {
                // Reads of many handlers' traces: the batch belongs to none of them.
                let reads = waiters.map(\.read)
                let results = try await ServiceContext.withValue(HTTPExchange.traces ? .topLevel : nil) {
                    try await batch(reads)
                }
                if results.count == waiters.count {
                    for (waiter, result) in zip(waiters, results) { waiter.resume(with: result.mapError { $0 }) }
                    continue
                }
            } catch let error as AdminHTTPError where [401, 403, 404].contains(error.status) {
                state.withLock { $0.batchesUnsupported = true }
            } catch {
                // No usable answer for the batch as a whole: each read gets its own below.
            }
            await sendAlone(waiters)
        }
    }

    /// Sends each read alone, side by side.
    private func sendAlone(_ waiters: [Waiter]) async {
        await withTaskGroup(of: Void.self) { group in
            for waiter in waiters {
                group.addTask {
                    let result = await ServiceContext.withValue(waiter.context) {
                        await Result { try await self.single(waiter.read) }
                    }
                    waiter.resume(with: result)
                }
            }
        }
    }
}

extension Result where Failure == any Error {
    /// The value or the error of an async throwing body.
    fileprivate init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
