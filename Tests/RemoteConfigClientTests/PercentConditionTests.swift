import CloudFunctions
import FirebaseEmulator
import Foundation
import RemoteConfigClient
import Testing

/// Percent conditions: stable per installation, and a split of the configured size.
@Suite("Remote Config: percent conditions")
struct PercentConditionTests {
    static let conditions = #""conditions": [{"name": "rollout", "expression": "percent <= 30"}], "#

    static func publishRollout(_ running: RunningEmulator) async throws {
        let json = #"{\#(conditions)"parameters": {"feature": {"defaultValue": {"value": "off"}, "#
            + #""conditionalValues": {"rollout": {"value": "on"}}}}}"#
        _ = try await running.emulator.remoteConfig.publish(RemoteConfigTemplate.decode(from: Data(json.utf8)), ifMatch: "*")
    }

    @Test("each installation gets its own answer of the percent condition, the same on every fetch over HTTP")
    func stable() async throws {
        try await RunningEmulator.with { running in
            try await Self.publishRollout(running)
            // Ten installations inside the 30% and ten outside, as the emulator evaluates them in process.
            var chosen: [String: [String]] = ["on": [], "off": []]
            while chosen.values.contains(where: { $0.count < 10 }) {
                let id = RemoteConfigInstallation.newID()
                let answer = try running.emulator.remoteConfig.fetch(
                    instance: RemoteConfigAppInstance(installationID: id)).entries["feature"] ?? "none"
                if chosen[answer, default: []].count < 10 { chosen[answer, default: []].append(id) }
            }
            #expect(chosen.keys.sorted() == ["off", "on"], "the condition decides, per installation")
            for (expected, ids) in chosen {
                for id in ids {
                    let client = running.client(clock: TestClock(), installation: RemoteConfigInstallation(installationID: id))
                    for _ in 0..<3 {
                        try await client.fetch(withExpirationDuration: 0)
                        client.activate()
                        #expect(client["feature"].stringValue == expected, "\(id)")
                    }
                }
            }
        }
    }

    @Test("10,000 installations split within 2 points of the configured 30%")
    func split() async throws {
        try await RunningEmulator.with { running in
            try await Self.publishRollout(running)
            // Evaluated in process: the same evaluation the fetch route runs, without 10,000 requests.
            var on = 0
            for _ in 0..<10_000 {
                let instance = RemoteConfigAppInstance(installationID: RemoteConfigInstallation.newID())
                let response = try running.emulator.remoteConfig.fetch(instance: instance)
                if response.entries["feature"] == "on" { on += 1 }
            }
            let share = Double(on) / 100
            #expect(abs(share - 30) <= 2, "\(share)% of installations are in the rollout")
        }
    }
}
