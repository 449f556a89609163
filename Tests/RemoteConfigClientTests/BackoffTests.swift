import Foundation
import Hummingbird
import HummingbirdTesting
import RemoteConfigClient
import Synchronization
import Testing

/// The backoff after server errors, against a backend that answers every fetch with 503.
@Suite("Remote Config client: backoff after server errors", .timeLimit(.minutes(2)))
struct BackoffTests {
    @Test("5xx starts a backoff of 2 minutes that doubles to a 4-hour cap, scaled by 50-150 % jitter")
    func serverErrors() async throws {
        let jitter = Mutex(0.0)
        let fetches = Mutex(0)
        let router = Router()
        router.post("**") { _, _ in
            fetches.withLock { $0 += 1 }
            return Response(status: .serviceUnavailable)
        }
        try await Application(router: router).test(.live) { client in
            let clock = TestClock()
            let remoteConfig = RemoteConfigClient(backend: URL(string: "http://127.0.0.1:\(client.port!)")!,
                project: "demo", clock: clock, random: { jitter.withLock { $0 } })
            for failure in 1...9 {
                await #expect {
                    try await remoteConfig.fetch(withExpirationDuration: 0)
                } throws: { error in
                    if case .fetchFailed(503, _) = error as? RemoteConfigError { return true }
                    return false
                }
                #expect(remoteConfig.lastFetchStatus == .failure)
                // Jitter 0 is the shortest wait: half the base.
                let wait = min(120 * pow(2, Double(failure - 1)), 4 * 3600) * 0.5
                clock.advance(by: wait - 1)
                let before = fetches.withLock { $0 }
                await #expect {
                    try await remoteConfig.fetch(withExpirationDuration: 0)
                } throws: { error in
                    if case .throttled = error as? RemoteConfigError { return true }
                    return false
                }
                #expect(remoteConfig.lastFetchStatus == .throttled)
                #expect(fetches.withLock { $0 } == before, "a throttled fetch does not reach the backend")
                #expect(await remoteConfig.fetchAndActivate() == .error)
                clock.advance(by: 1)
            }
            // The cap is 4 hours; jitter 1 makes the wait 150 % of it.
            jitter.withLock { $0 = 1 }
            await #expect(throws: RemoteConfigError.self) { try await remoteConfig.fetch(withExpirationDuration: 0) }
            clock.advance(by: 4 * 3600 * 1.5 - 1)
            await #expect {
                try await remoteConfig.fetch(withExpirationDuration: 0)
            } throws: { error in
                if case .throttled = error as? RemoteConfigError { return true }
                return false
            }
            clock.advance(by: 1)
            let before = fetches.withLock { $0 }
            await #expect(throws: RemoteConfigError.self) { try await remoteConfig.fetch(withExpirationDuration: 0) }
            #expect(fetches.withLock { $0 } == before + 1, "after the backoff the client asks the backend again")
        }
    }
}
