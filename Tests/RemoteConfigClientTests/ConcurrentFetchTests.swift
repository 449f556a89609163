import Foundation
import Hummingbird
import HummingbirdTesting
import RemoteConfigClient
import Synchronization
import Testing

/// What happens while a fetch is on its way: a backend that answers each fetch only when the
/// test says, so pings and other fetches can come in between.
@Suite("Remote Config client: while a fetch is on its way", .timeLimit(.minutes(1)))
struct ConcurrentFetchTests {
    /// A fetch backend whose answers the test gives, request by request, in any order.
    final class HeldBackend: Sendable {
        private struct State {
            var arrived = 0
            var answers: [Int: String] = [:]
            var waiting: [Int: CheckedContinuation<String, Never>] = [:]
        }

        private let state = Mutex(State())
        /// The number of each request as it arrives, from 0.
        let arrivals = AsyncStream<Int>.makeStream()

        /// Answers request `index` with the fetch answer `json`.
        func answer(_ index: Int, with json: String) {
            let waiter = state.withLock { state in
                guard let waiter = state.waiting.removeValue(forKey: index) else {
                    state.answers[index] = json
                    return nil as CheckedContinuation<String, Never>?
                }
                return waiter
            }
            waiter?.resume(returning: json)
        }

        /// Waits for the test's answer to the next request.
        func next() async -> String {
            let index = state.withLock { state in
                defer { state.arrived += 1 }
                return state.arrived
            }
            arrivals.continuation.yield(index)
            return await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    guard let answer = state.answers.removeValue(forKey: index) else {
                        state.waiting[index] = continuation
                        return nil as String?
                    }
                    return answer
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        /// Serves the backend on a free port for the duration of `body`, with a client of it.
        func withClient(_ body: @Sendable (RemoteConfigClient) async throws -> Void) async throws {
            let router = Router()
            router.post("/**") { _, _ -> Response in
                Response(status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: await self.next())))
            }
            try await Application(router: router).test(.live) { client in
                let port = try #require(client.port)
                try await body(RemoteConfigClient(backend: URL(string: "http://127.0.0.1:\(port)")!, project: "demo",
                    clock: TestClock(), random: { 0.5 }))
            }
        }

        static func update(version: Int, color: String) -> String {
            #"{"state": "UPDATE", "templateVersion": "\#(version)", "entries": {"color": "\#(color)"}}"#
        }
    }

    @Test("a CONFIG_STATE message that comes while a fetch is on its way leaves the config stale after it")
    func pingDuringFetch() async throws {
        let backend = HeldBackend()
        try await backend.withClient { client in
            var arrivals = backend.arrivals.stream.makeAsyncIterator()
            let fetch = Task { try await client.fetch(withExpirationDuration: 0) }
            #expect(await arrivals.next() == 0)
            // Version 2 is published while the fetch is served version 1.
            #expect(client.handleRemoteMessage(data: ["CONFIG_STATE": "STALE"]))
            backend.answer(0, with: HeldBackend.update(version: 1, color: "green"))
            let status = try await fetch.value
            #expect(status == .success)
            #expect(client.fetchedTemplateVersion == 1)
            #expect(client.isStale, "the ping may be for a newer template than the answer")
            // So the next fetch, inside the interval, still goes to the backend, and clears it.
            let next = Task { try await client.fetch() }
            #expect(await arrivals.next() == 1)
            backend.answer(1, with: HeldBackend.update(version: 2, color: "blue"))
            let nextStatus = try await next.value
            #expect(nextStatus == .success)
            #expect(client.fetchedTemplateVersion == 2)
            #expect(!client.isStale)
        }
    }

    @Test("a later fetch's answer is applied even when its template is older (a backend started over)")
    func olderTemplateLater() async throws {
        let backend = HeldBackend()
        try await backend.withClient { client in
            var arrivals = backend.arrivals.stream.makeAsyncIterator()
            let first = Task { try await client.fetch(withExpirationDuration: 0) }
            #expect(await arrivals.next() == 0)
            backend.answer(0, with: HeldBackend.update(version: 5, color: "blue"))
            _ = try await first.value
            let second = Task { try await client.fetch(withExpirationDuration: 0) }
            #expect(await arrivals.next() == 1)
            backend.answer(1, with: HeldBackend.update(version: 1, color: "green"))
            _ = try await second.value
            #expect(client.fetchedTemplateVersion == 1)
            #expect(client.activate())
            #expect(client["color"].stringValue == "green")
        }
    }

    @Test("two fetches crossing: the earlier fetch's answer, coming last, does not replace the later one's")
    func crossingFetches() async throws {
        let backend = HeldBackend()
        try await backend.withClient { client in
            var arrivals = backend.arrivals.stream.makeAsyncIterator()
            let older = Task { try await client.fetch(withExpirationDuration: 0) }
            #expect(await arrivals.next() == 0)
            let newer = Task { try await client.fetch(withExpirationDuration: 0) }
            #expect(await arrivals.next() == 1)
            backend.answer(1, with: HeldBackend.update(version: 2, color: "blue"))
            _ = try await newer.value
            #expect(client.activate())
            backend.answer(0, with: HeldBackend.update(version: 1, color: "green"))
            _ = try await older.value
            #expect(client.fetchedTemplateVersion == 2)
            #expect(!client.activate(), "nothing older to activate")
            #expect(client.activeTemplateVersion == 2)
            #expect(client["color"].stringValue == "blue")
        }
    }
}
