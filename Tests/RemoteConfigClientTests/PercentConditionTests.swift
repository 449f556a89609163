import FirebaseEmulator
import Foundation
import RemoteConfigClient
import Testing

/// Percent conditions: stable per installation, and a split of the configured size.
@Suite("Remote Config: percent conditions")
struct PercentConditionTests {
    static let conditions = #""conditions": [{"name": "rollout", "expression": "percent <= 30"}], "#

    static func publishRollout(_ running: RunningEmulator) throws {
        let json = #"{\#(conditions)"parameters": {"feature": {"defaultValue": {"value": "off"}, "#
            + #""conditionalValues": {"rollout": {"value": "on"}}}}}"#
        _ = try running.emulator.remoteConfig.publish(RemoteConfigTemplate.decode(from: Data(json.utf8)), ifMatch: "*")
    }

    @Test("each installation gets the same answer on every fetch over HTTP")
    func stable() async throws {
        try await RunningEmulator.with { running in
            try Self.publishRollout(running)
            var answers: Set<String> = []
            for _ in 0..<20 {
                let client = running.client(clock: TestClock())
                var seen: Set<String> = []
                for _ in 0..<3 {
                    try await client.fetch(withExpirationDuration: 0)
                    client.activate()
                    seen.insert(client["feature"].stringValue)
                }
                #expect(seen.count == 1)
                answers.formUnion(seen)
            }
            #expect(answers.isSubset(of: ["on", "off"]))
        }
    }

    @Test("10,000 installations split within 2 points of the configured 30%")
    func split() async throws {
        try await RunningEmulator.with { running in
            try Self.publishRollout(running)
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
