import Foundation
import RemoteConfigClient
import Testing

/// Fetching from the emulator: expirations, the cache, activate, fetchAndActivate, throttling.
@Suite("Remote Config client: fetch and activate")
struct FetchTests {
    @Test("fetch() uses the minimum fetch interval (12 h by default); an explicit expiration wins over it")
    func expirations() async throws {
        try await RunningEmulator.with { running in
            let clock = TestClock()
            let client = running.client(clock: clock)
            #expect(client.settings.minimumFetchInterval == 43_200)
            #expect(client.settings.fetchTimeout == 60)
            #expect(client.lastFetchStatus == .noFetchYet)
            #expect(client.lastFetchTime == nil)
            try await running.publish(["color": "green"])
            #expect(try await client.fetch() == .success)
            #expect(client.fetchedTemplateVersion == 1)
            #expect(client.lastFetchTime == clock.now)

            try await running.publish(["color": "blue"])
            clock.advance(by: 43_199)
            try await client.fetch()   // inside 12 h: the cache
            #expect(client.fetchedTemplateVersion == 1)
            #expect(client.lastFetchStatus == .success)
            try await client.fetch(withExpirationDuration: 3600)   // explicit: the last fetch is older
            #expect(client.fetchedTemplateVersion == 2)

            try await running.publish(["color": "red"])
            client.settings.minimumFetchInterval = 0
            clock.advance(by: 10)
            try await client.fetch(withExpirationDuration: 3600)   // explicit 1 h beats the 0 setting
            #expect(client.fetchedTemplateVersion == 2)
            try await client.fetch()   // the 0 setting: always the backend
            #expect(client.fetchedTemplateVersion == 3)
        }
    }

    @Test("activate reports whether anything changed; fetchAndActivate says where the values came from")
    func activation() async throws {
        try await RunningEmulator.with { running in
            let clock = TestClock()
            let client = running.client(clock: clock)
            try client.setDefaults(["color": "grey", "size": "m"])
            #expect(client.activate() == false)   // nothing fetched yet
            try await running.publish(["color": "green"])
            try await client.fetch()
            #expect(client["color"].source == .default)   // fetched, not active
            #expect(client.activate() == true)
            #expect(client["color"] == RemoteConfigValue("green", source: .remote))
            #expect(client["size"] == RemoteConfigValue("m", source: .default))
            #expect(client.activeTemplateVersion == 1)
            #expect(client.activate() == false)

            try await running.publish(["color": "blue"])
            #expect(await client.fetchAndActivate() == .successUsingPreFetchedData)
            #expect(client["color"].stringValue == "green")
            clock.advance(by: 43_200)
            #expect(await client.fetchAndActivate() == .successFetchedFromRemote)
            #expect(client["color"].stringValue == "blue")
            #expect(client.allKeys(from: .remote) == ["color"])
        }
    }

    @Test("429 and 5xx answers start an exponential backoff; the client reports throttled until it ends")
    func throttling() async throws {
        try await RunningEmulator.with { running in
            let clock = TestClock()
            let client = running.client(clock: clock)
            try await running.publish(["color": "green"])
            let (status, _) = try await running.call("PUT", "/emulator/v1/projects/demo/remoteConfig:fetchLimit",
                #"{"count": 2, "windowSeconds": 3600}"#)
            #expect(status == 200)
            try await client.fetch(withExpirationDuration: 0)
            try await client.fetch(withExpirationDuration: 0)
            await #expect {
                try await client.fetch(withExpirationDuration: 0)
            } throws: { error in
                guard case .fetchFailed(429, _) = error as? RemoteConfigError else { return false }
                return true
            }
            #expect(client.lastFetchStatus == .failure)

            // Backing off: 2 minutes (jitter fixed at the middle), no request is made.
            var until: Date?
            await #expect {
                try await client.fetch(withExpirationDuration: 0)
            } throws: { error in
                guard case .throttled(let end) = error as? RemoteConfigError else { return false }
                until = end
                return true
            }
            #expect(until == clock.now.addingTimeInterval(120))
            #expect(client.lastFetchStatus == .throttled)

            // The backend still refuses after the first backoff: the next one is twice as long.
            clock.advance(by: 121)
            await #expect(throws: RemoteConfigError.self) { try await client.fetch(withExpirationDuration: 0) }
            await #expect {
                try await client.fetch(withExpirationDuration: 0)
            } throws: { error in
                guard case .throttled(let end) = error as? RemoteConfigError else { return false }
                return end == clock.now.addingTimeInterval(240)
            }

            // Once the backend lets it through and the backoff has ended, fetches succeed again.
            try await running.call("PUT", "/emulator/v1/projects/demo/remoteConfig:fetchLimit", "{}")
            clock.advance(by: 239)
            await #expect(throws: RemoteConfigError.self) { try await client.fetch(withExpirationDuration: 0) }
            clock.advance(by: 2)
            #expect(try await client.fetch(withExpirationDuration: 0) == .success)
            #expect(client.lastFetchStatus == .success)
        }
    }

    @Test("inside the interval the cache answers first, as the SDKs check it: also after a failure, and while backing off")
    func cacheBeforeBackoff() async throws {
        try await RunningEmulator.with { running in
            let clock = TestClock()
            let client = running.client(clock: clock)
            try await running.publish(["color": "green"])
            // One fetch in two hours per instance: this one, so the next is refused with 429.
            try await running.call("PUT", "/emulator/v1/projects/demo/remoteConfig:fetchLimit",
                #"{"count": 1, "windowSeconds": 7200}"#)
            #expect(await client.fetchAndActivate() == .successFetchedFromRemote)
            await #expect(throws: RemoteConfigError.self) { try await client.fetch(withExpirationDuration: 0) }
            #expect(client.lastFetchStatus == .failure)
            // Backing off after the 429, yet the last successful fetch is an hour old: the cache answers.
            clock.advance(by: 3600)
            #expect(await client.fetchAndActivate() == .successUsingPreFetchedData)
            #expect(client.lastFetchStatus == .success)
            await #expect(throws: RemoteConfigError.self) { try await client.fetch(withExpirationDuration: 0) }
        }
    }

    @Test("an unreachable backend is a failure, not a crash, and starts no backoff")
    func unreachable() async throws {
        let client = RemoteConfigClient(backend: URL(string: "http://127.0.0.1:1")!, project: "demo",
            clock: TestClock())
        await #expect {
            try await client.fetch()
        } throws: { error in
            guard case .transport = error as? RemoteConfigError else { return false }
            return true
        }
        #expect(client.lastFetchStatus == .failure)
        await #expect {
            try await client.fetch()
        } throws: { error in
            guard case .transport = error as? RemoteConfigError else { return false }
            return true
        }
    }
}
