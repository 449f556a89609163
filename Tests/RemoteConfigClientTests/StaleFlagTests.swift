import Foundation
import RemoteConfigClient
import Testing

/// The stale-flag protocol: a `CONFIG_STATE` message marks the config stale, persisted, and the
/// next fetch skips the cache.
@Suite("Remote Config client: the stale flag")
struct StaleFlagTests {
    @Test("a CONFIG_STATE message sets a persisted flag without fetching; the next fetch skips the cache and clears it")
    func staleFlag() async throws {
        try await RunningEmulator.with { running in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rc-store-\(UUID())")
            defer { try? FileManager.default.removeItem(at: folder) }
            let clock = TestClock()
            let installation = RemoteConfigInstallation()
            let first = running.client(clock: clock, installation: installation, store: try .directory(folder))
            try await running.publish(["color": "green"])
            // One fetch an hour per instance: this one, so a later one fails (see below).
            try await running.call("PUT", "/emulator/v1/projects/demo/remoteConfig:fetchLimit",
                #"{"count": 1, "windowSeconds": 3600}"#)
            #expect(await first.fetchAndActivate() == .successFetchedFromRemote)
            try await running.publish(["color": "blue"])

            #expect(first.handleRemoteMessage(data: ["other": "x"]) == false)
            #expect(first.isStale == false)
            #expect(first.handleRemoteMessage(data: ["CONFIG_STATE": "STALE"]))
            #expect(first.isStale)
            #expect(first.fetchedTemplateVersion == 1)   // receiving the ping does not fetch

            // The app is killed and launched again: the flag and the config survive.
            let second = running.client(clock: clock, installation: installation, store: try .directory(folder))
            #expect(second.isStale)
            #expect(second["color"] == RemoteConfigValue("green", source: .remote))
            #expect(second.lastFetchStatus == .success)

            // A failed fetch leaves the flag set.
            // A failed fetch is the status .error, as in the SDKs; the flag and the active config stay.
            #expect(await second.fetchAndActivate() == .error)
            #expect(second.lastFetchError is RemoteConfigError)
            #expect(second.lastFetchStatus == .failure)
            #expect(second["color"].stringValue == "green")
            #expect(second.isStale)
            try await running.call("PUT", "/emulator/v1/projects/demo/remoteConfig:fetchLimit", "{}")

            // Inside the 12-hour interval, yet the stale config is fetched from the backend.
            clock.advance(by: 121)
            #expect(try await second.fetchAndActivate() == .successFetchedFromRemote)
            #expect(second["color"].stringValue == "blue")
            #expect(second.isStale == false)
            let third = running.client(clock: clock, installation: installation, store: try .directory(folder))
            #expect(third.isStale == false)
            #expect(try await third.fetchAndActivate() == .successUsingPreFetchedData)
        }
    }
}
