import CloudFunctions
@testable import FirebaseHTTP
import Synchronization
import Testing

/// How a worker's database client coalesces its handlers' concurrent reads.
@Suite("Database read batcher")
struct DatabaseReadBatcherTests {
    /// A read service whose lone reads of `slow` paths wait until `release()`, recording what it
    /// was asked.
    final class Backend: Sendable {
        let singles = Mutex<[String]>([])
        let batches = Mutex<[[String]]>([])
        let gate = AsyncStream<Void>.makeStream()
        let batchAnswer: @Sendable ([DatabaseReadBatcher.Read]) throws -> [Result<VersionedValue, AdminHTTPError>]

        init(batchAnswer: @escaping @Sendable ([DatabaseReadBatcher.Read]) throws
            -> [Result<VersionedValue, AdminHTTPError>] = { reads in reads.map(Backend.answer) })
        {
            self.batchAnswer = batchAnswer
        }

        /// `path` as the value and `etag-{path}` as the ETag; the path `bad` fails with a 400.
        static func answer(_ read: DatabaseReadBatcher.Read) -> Result<VersionedValue, AdminHTTPError> {
            read.path == "bad" ? .failure(AdminHTTPError(status: 400, message: "bad path"))
                : .success(VersionedValue(value: .string(read.path), etag: "etag-\(read.path)"))
        }

        func makeBatcher() -> DatabaseReadBatcher {
            DatabaseReadBatcher(
                single: { read in
                    self.singles.withLock { $0.append(read.path) }
                    if read.path.hasPrefix("slow") { for await _ in self.gate.stream { break } }
                    return try Self.answer(read).get()
                },
                batch: { reads in
                    self.batches.withLock { $0.append(reads.map(\.path)) }
                    return try self.batchAnswer(reads)
                })
        }

        func release() { gate.continuation.yield() }
    }

    /// Starts a read of `first` (a `slow` path), then of `others` once the first is on its way,
    /// waits until all of them queue behind it, releases the first and returns every read's
    /// outcome by path.
    static func readWhileOneIsOnItsWay(
        _ batcher: DatabaseReadBatcher, _ backend: Backend, first: String, others: [String]
    ) async -> [String: Result<VersionedValue, AdminHTTPError>] {
        await withTaskGroup(of: (String, Result<VersionedValue, AdminHTTPError>).self) { group in
            func start(_ path: String) {
                group.addTask {
                    do {
                        return (path, .success(try await batcher.read(path, versioned: true)))
                    } catch {
                        return (path, .failure(error as? AdminHTTPError ?? AdminHTTPError(status: 0, message: "\(error)")))
                    }
                }
            }
            start(first)
            while !backend.singles.withLock({ $0.contains(first) }) { await Task.yield() }
            for path in others { start(path) }
            while batcher.waitingCount < others.count { await Task.yield() }
            backend.release()
            var outcomes: [String: Result<VersionedValue, AdminHTTPError>] = [:]
            for await (path, outcome) in group { outcomes[path] = outcome }
            return outcomes
        }
    }

    @Test("a waiting read whose task is cancelled ends at once, and is not sent; the other reads are answered",
          .timeLimit(.minutes(1)))
    func cancelledWhileWaiting() async throws {
        let backend = Backend()
        let batcher = backend.makeBatcher()
        let lead = Task { try await batcher.read("slow/lead", versioned: false) }
        while !backend.singles.withLock({ $0.contains("slow/lead") }) { await Task.yield() }
        let cancelled = Task { try await batcher.read("a", versioned: false) }
        let kept = Task { try await batcher.read("b", versioned: false) }
        while batcher.waitingCount < 2 { await Task.yield() }
        // A handler past its timeout: its read ends while the read before it is still on its way.
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(batcher.waitingCount == 1)
        backend.release()
        #expect(try await lead.value.value == "slow/lead")
        #expect(try await kept.value.value == "b")
        #expect(backend.singles.withLock { $0 } == ["slow/lead", "b"])
    }

    @Test("a lone read goes alone; reads made while it is on its way go in one batch, each answered its own")
    func coalesces() async throws {
        let backend = Backend()
        let batcher = backend.makeBatcher()
        let others = (1...20).map { "leaderboard/p\($0)" } + ["bad"]
        let outcomes = await Self.readWhileOneIsOnItsWay(batcher, backend, first: "slow/p0", others: others)
        #expect(backend.singles.withLock { $0 } == ["slow/p0"])
        let batches = backend.batches.withLock { $0 }
        #expect(batches.count == 1)
        #expect(Set(batches.first ?? []) == Set(others))
        for path in ["slow/p0"] + others where path != "bad" {
            #expect(try outcomes[path]?.get() == VersionedValue(value: .string(path), etag: "etag-\(path)"))
        }
        #expect(throws: AdminHTTPError.self) { try outcomes["bad"]?.get() }
        // Nothing on its way any more: the next read goes alone at once.
        #expect(try await batcher.read("later", versioned: false).value == "later")
        #expect(backend.singles.withLock { $0 }.last == "later")
    }

    @Test("a server that refuses the batch route (404, 401, 403) gets each read alone, at once, from then on",
        arguments: [404, 401, 403])
    func fallsBackWithoutTheRoute(status: Int) async throws {
        let backend = Backend(batchAnswer: { _ in throw AdminHTTPError(status: status, message: "refused") })
        let batcher = backend.makeBatcher()
        let outcomes = await Self.readWhileOneIsOnItsWay(batcher, backend, first: "slow/a", others: ["b", "c"])
        #expect(try outcomes.mapValues { try $0.get().value } == ["slow/a": "slow/a", "b": "b", "c": "c"])
        #expect(Set(backend.singles.withLock { $0 }) == ["slow/a", "b", "c"])
        #expect(backend.batches.withLock { $0.count } == 1)
        // A read made while another is on its way no longer waits for it.
        async let slow = batcher.read("slow/d", versioned: false)
        while !backend.singles.withLock({ $0.contains("slow/d") }) { await Task.yield() }
        #expect(try await batcher.read("e", versioned: true).etag == "etag-e")
        backend.release()
        #expect(try await slow.value == "slow/d")
        #expect(backend.batches.withLock { $0.count } == 1)
    }

    @Test("a batch that fails as a whole (no answer, a 5xx) is sent again read by read; each fails only for itself")
    func failedBatch() async throws {
        let backend = Backend(batchAnswer: { _ in throw AdminHTTPError(status: 503, message: "unavailable") })
        let batcher = backend.makeBatcher()
        let outcomes = await Self.readWhileOneIsOnItsWay(batcher, backend, first: "slow/a", others: ["b", "c", "bad"])
        #expect(try outcomes.mapValues { try? $0.get().value } == ["slow/a": "slow/a", "b": "b", "c": "c", "bad": nil])
        #expect { try outcomes["bad"]?.get() } throws: { ($0 as? AdminHTTPError)?.status == 400 }
        #expect(Set(backend.singles.withLock { $0 }) == ["slow/a", "b", "c", "bad"])
        // Batching goes on: the next reads queued behind a lone one are tried together again.
        _ = await Self.readWhileOneIsOnItsWay(batcher, backend, first: "slow/e", others: ["f", "g"])
        #expect(backend.batches.withLock { $0.count } == 2)
    }
}
