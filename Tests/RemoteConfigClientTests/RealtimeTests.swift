import Foundation
import RemoteConfigClient
import Testing

/// Realtime update listeners over the emulator's `:streamFetchInvalidations` stream.
@Suite("Remote Config client: realtime listeners", .timeLimit(.minutes(5)))
struct RealtimeTests {
    @Test("a listener hears exactly the changed keys of each new version, nothing for a version without changes")
    func updates() async throws {
        try await RunningEmulator.with { running in
            let client = running.client(clock: TestClock())
            try await running.publish(["color": "green", "size": "m", "old": "x"])
            #expect(await client.fetchAndActivate() == .successFetchedFromRemote)
            let (updates, continuation) = AsyncStream.makeStream(of: Result<RemoteConfigUpdate, RemoteConfigError>.self)
            let registration = client.addOnConfigUpdateListener { continuation.yield($0) }
            var iterator = updates.makeAsyncIterator()

            try await running.publish(["color": "blue", "size": "m", "new": "y"])
            let first = try #require(await iterator.next()).get()
            #expect(first.updatedKeys == ["color", "old", "new"])
            #expect(first.templateVersion == 2)
            #expect(client["color"].stringValue == "green")   // fetched, not activated
            client.activate()

            // Version 3 changes nothing an app sees: the client fetches it, with no callback; version 4 does.
            try await running.publish(["color": "blue", "size": "m", "new": "y"])
            let deadline = ContinuousClock.now + .seconds(30)
            while client.fetchedTemplateVersion < 3, ContinuousClock.now < deadline { await Task.yield() }
            #expect(client.fetchedTemplateVersion == 3, "the listener fetched version 3")
            try await running.publish(["color": "blue", "size": "l", "new": "y"])
            let second = try #require(await iterator.next()).get()
            #expect(second.updatedKeys == ["size"])
            #expect(second.templateVersion == 4)

            registration.remove()
            continuation.finish()
        }
    }

    @Test("stream errors reach the listener and the client reconnects with growing delays")
    func errorsAndReconnects() async throws {
        let clock = TestClock()
        let client = RemoteConfigClient(backend: URL(string: "http://127.0.0.1:1")!, project: "demo", clock: clock,
            random: { 0.5 })
        let (errors, continuation) = AsyncStream.makeStream(of: RemoteConfigError.self)
        let registration = client.addOnConfigUpdateListener { result in
            if case .failure(let error) = result { continuation.yield(error) }
        }
        var iterator = errors.makeAsyncIterator()
        for _ in 0..<3 {
            guard case .transport = try #require(await iterator.next()) else {
                Issue.record("expected a transport error")
                return
            }
        }
        registration.remove()
        continuation.finish()
        let sleeps = clock.sleeps
        #expect(sleeps.count >= 2)
        #expect(Array(sleeps.prefix(3)) == Array([1.0, 2.0, 4.0].prefix(sleeps.count)))
    }
}
