import CloudFunctions
import CloudFunctionsTesting
import FirebaseHTTP
import Foundation
import GoogleAuth
import Synchronization
import Testing

@Suite("Access tokens: renewal margin, one renewal at a time, refusals", .timeLimit(.minutes(1)))
struct TokenCacheTests {
    /// A token source that counts its fetches; each token lives `lifetime` on `clock`.
    final class Source: Sendable {
        let clock: ManualClock
        let lifetime: TimeInterval
        let fetches = Mutex(0)

        init(clock: ManualClock, lifetime: TimeInterval) {
            self.clock = clock
            self.lifetime = lifetime
        }

        var count: Int { fetches.withLock { $0 } }

        func fetch() -> AccessToken {
            let number = fetches.withLock { count in
                count += 1
                return count
            }
            return AccessToken(value: "token-\(number)", expiresAt: clock.now.addingTimeInterval(lifetime))
        }
    }

    /// A count shared by tasks.
    final class Counter: Sendable {
        private let count = Mutex(0)
        func next() -> Int { count.withLock { $0 += 1; return $0 } }
    }

    /// Holds whoever passes until it opens, and lets everyone through from then on.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, held: [CheckedContinuation<Void, Never>])>((false, []))

        func pass() async {
            await withCheckedContinuation { continuation in
                let through = state.withLock { state in
                    if !state.open { state.held.append(continuation) }
                    return state.open
                }
                if through { continuation.resume() }
            }
        }

        func open() {
            let held = state.withLock { state in
                state.open = true
                defer { state.held = [] }
                return state.held
            }
            for waiter in held { waiter.resume() }
        }
    }

    @Test("a token is kept until 3 min 45 s before it expires, then renewed at its next use")
    func margin() async throws {
        let clock = ManualClock()
        let source = Source(clock: clock, lifetime: 3600)
        let cache = TokenCache(clock: clock) { source.fetch() }
        #expect(try await cache.token().value == "token-1")
        clock.advance(by: .seconds(3600 - 226))
        #expect(try await cache.token().value == "token-1")
        clock.advance(by: .seconds(2))
        #expect(try await cache.token().value == "token-2")
        #expect(try await cache.token().value == "token-2")
        #expect(source.count == 2)
    }

    @Test("a token that lives shorter than the margin is renewed at every use")
    func shortTokens() async throws {
        let clock = ManualClock()
        let source = Source(clock: clock, lifetime: 30)
        let cache = TokenCache(clock: clock) { source.fetch() }
        for expected in 1...3 { #expect(try await cache.token().value == "token-\(expected)") }
    }

    @Test("100 callers needing a token at once share one renewal")
    func oneRenewal() async throws {
        let clock = ManualClock()
        let source = Source(clock: clock, lifetime: 3600)
        // The renewal is held until every caller has asked for a token: a cache that fetched for
        // each caller without a token at hand would fetch up to 100 times.
        let asked = Counter()
        let gate = Gate()
        let cache = TokenCache(clock: clock) {
            await gate.pass()
            return source.fetch()
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    if asked.next() == 100 { gate.open() }
                    return try await cache.token().value
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "token-1", count: 100))
        #expect(source.count == 1)
    }

    @Test("a failed renewal fails its callers, and the next use tries again")
    func failure() async throws {
        struct Down: Error {}
        let clock = ManualClock()
        let source = Source(clock: clock, lifetime: 3600)
        let attempts = Counter()
        let cache = TokenCache(clock: clock) {
            if attempts.next() == 1 { throw Down() }
            return source.fetch()
        }
        await #expect(throws: Down.self) { try await cache.token() }
        #expect(try await cache.token().value == "token-1")
    }

    @Test("a failed renewal inside the margin leaves the token at hand in use until it expires")
    func keptThroughFailure() async throws {
        struct Down: Error {}
        let clock = ManualClock()
        let source = Source(clock: clock, lifetime: 3600)
        let attempts = Counter()
        let cache = TokenCache(clock: clock) {
            if attempts.next() > 1 { throw Down() }
            return source.fetch()
        }
        let first = try await cache.token()
        clock.advance(by: .seconds(3500))
        #expect(try await cache.token() == first)
        clock.advance(by: .seconds(101))
        await #expect(throws: Down.self) { try await cache.token() }
    }

    @Test("refusals force a renewal at most once in 30 s: a service that refuses every token gets no renewal per call")
    func refusalInterval() async throws {
        let clock = ManualClock()
        let source = Source(clock: clock, lifetime: 3600)
        let cache = TokenCache(clock: clock) { source.fetch() }
        cache.refused(try await cache.token())
        let second = try await cache.token()
        cache.refused(second)
        #expect(try await cache.token() == second)
        clock.advance(by: .seconds(31))
        cache.refused(second)
        #expect(try await cache.token().value == "token-3")
    }

    @Test("a caller cancelled while the renewal is on its way stops waiting; the others get the token")
    func cancelledCaller() async throws {
        let clock = ManualClock()
        let source = Source(clock: clock, lifetime: 3600)
        let gate = Gate()
        let cache = TokenCache(clock: clock) {
            await gate.pass()
            return source.fetch()
        }
        let waiting = Task { try await cache.token() }
        let cancelled = Task { try await cache.token() }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        gate.open()
        #expect(try await waiting.value.value == "token-1")
        #expect(source.count == 1)
    }

    @Test("a refused token is renewed at its next use; refusing an older one changes nothing")
    func refused() async throws {
        let clock = ManualClock()
        let source = Source(clock: clock, lifetime: 3600)
        let cache = TokenCache(clock: clock) { source.fetch() }
        let first = try await cache.token()
        cache.refused(first)
        let second = try await cache.token()
        #expect(second.value == "token-2")
        cache.refused(first)
        #expect(try await cache.token() == second)
    }
}
