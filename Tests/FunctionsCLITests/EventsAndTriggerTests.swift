import CloudFunctions
import Foundation
import Testing

/// `functions:list`, `events:log` and `trigger` with the real `push-config-worker` deployed.
@Suite("functions functions:list, events:log, trigger", .timeLimit(.minutes(5)))
struct EventsAndTriggerTests {
    /// Deploys the push-config-worker binary the way `functions deploy` does, minus the build.
    static func deployWorker(to emulator: RunningEmulator) async throws {
        let manifestFile = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: manifestFile) }
        let worker = CLIProcess.product("push-config-worker")
        let process = Process()
        process.executableURL = worker
        process.environment = ["FUNCTIONS_MANIFEST_OUTPUT_PATH": manifestFile.path]
        try process.run()
        process.waitUntilExit()
        let manifest = try JSONValue(parsing: Data(contentsOf: manifestFile))
        let answer = try await emulator.request("POST", "/emulator/v1/projects/demo-project/deployments",
            ["binary": .string(worker.path), "manifest": manifest])
        #expect(answer["functions"]?["pushConfig"]?["instances"]?.arrayValue?.first?["status"] == "running", "\(answer)")
    }

    @Test("list the deployed functions, read the event log, and re-fire a stored event at a function")
    func listLogAndTrigger() async throws {
        let emulator = try RunningEmulator()
        let empty = try emulator.cli("functions:list")
        #expect(empty.output.hasPrefix("no functions deployed"))
        try await Self.deployWorker(to: emulator)
        let list = try emulator.cli("functions:list")
        #expect(list.output.contains("pushConfig\tgoogle.firebase.remoteconfig.remoteConfig.v1.updated"), "\(list.output)")
        // pushConfig takes 80 events at once and sets no maxInstances: one instance per core, 2 to 10.
        let maximum = min(10, max(2, ProcessInfo.processInfo.activeProcessorCount))
        #expect(list.output.contains("  instances: 1 (min 1, max \(maximum), 80 events each)"), "\(list.output)")
        #expect(list.output.contains("  - running http://127.0.0.1:"))

        let token = try #require(try await emulator.request("POST", "/emulator/v1/projects/demo-project/devices", [:])[
            "token"]?.stringValue)
        try await emulator.request("POST", "/iid/v1:batchAdd",
            ["to": "/topics/PUSH_RC", "registration_tokens": [.string(token)]])
        #expect(try emulator.cli("config:publish", "-", "--force", input: #"{"parameters": {}}"#).status == 0)

        // The publish is delivered asynchronously: --wait answers once it is.
        let log = try emulator.cli("events:log", "--json", "--wait")
        let events = try JSONValue(parsing: Data(log.output.utf8))["events"]?.arrayValue ?? []
        #expect(events.first?["deliveries"]?.arrayValue?.first?["status"] == "succeeded", "\(log.output)")
        let eventId = try #require(events.first?["id"]?.stringValue)
        let text = try emulator.cli("events:log").output
        #expect(text.contains("google.firebase.remoteconfig.remoteConfig.v1.updated"))
        #expect(text.contains("pushConfig  succeeded after 1 attempt"), "\(text)")

        let fired = try emulator.cli("trigger", "pushConfig", "--event-id", eventId)
        #expect(fired.status == 0, "\(fired.errors)")
        #expect(fired.output == "pushConfig succeeded on event \(eventId) "
            + "(google.firebase.remoteconfig.remoteConfig.v1.updated)\n")
        let handWritten = try emulator.cli("trigger", "pushConfig", "--data",
            #"{"versionNumber": "9", "updateType": "INCREMENTAL_UPDATE", "updateOrigin": "CONSOLE"}"#)
        #expect(handWritten.status == 0, "\(handWritten.errors)")
        let inbox = try emulator.cli("messaging:inbox", token).output.split(separator: "\n")
        #expect(inbox.count == 3)
    }

    @Test("trigger refuses an unknown function, an unknown event id, and a function that fails reports its error")
    func triggerErrors() async throws {
        let emulator = try RunningEmulator()
        try await Self.deployWorker(to: emulator)
        let unknown = try emulator.cli("trigger", "nope", "--data", "{}")
        #expect(unknown.status != 0)
        #expect(unknown.errors.contains("no deployed function named 'nope'"), "\(unknown.errors)")
        let missing = try emulator.cli("trigger", "pushConfig", "--event-id", "no-such-event")
        #expect(missing.errors.contains("no event with id 'no-such-event'"))
        let both = try emulator.cli("trigger", "pushConfig", "--event-id", "a", "--data", "{}")
        #expect(both.status != 0)
        // Data pushConfig cannot decode as a template version fails the attempt, with the worker's answer.
        let failed = try emulator.cli("trigger", "pushConfig", "--data", #"{"versionNumber": []}"#)
        #expect(failed.status != 0)
        #expect(failed.errors.contains("pushConfig failed on event"), "\(failed.errors)")
        #expect(failed.errors.contains("the worker answered"), "\(failed.errors)")
    }
}

/// `functions demo:stale-loop` against a running emulator with the push-config-worker deployed.
@Suite("functions demo:stale-loop", .timeLimit(.minutes(5)))
struct DemoStaleLoopTests {
    @Test("prints each step: the ping reaches the subscribed devices, which fetch; the others keep their cache")
    func demo() async throws {
        let emulator = try RunningEmulator()
        let refused = try emulator.cli("demo:stale-loop")
        #expect(refused.status != 0)
        #expect(refused.errors.contains("no Remote Config function is deployed"))
        try await EventsAndTriggerTests.deployWorker(to: emulator)
        let run = try emulator.cli("demo:stale-loop", "--devices", "3", "--others", "1")
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.contains("4. pushConfig's {\"CONFIG_STATE\": \"STALE\"} reached 3 devices; 3 marked their config stale"),
            "\(run.output)")
        #expect(lines.filter { $0.contains("fetched from the emulator, active version 1") }.count == 3)
        #expect(lines.filter { $0.contains("(not on PUSH_RC): served from its cache, active version 0") }.count == 1)
        #expect(lines.last == "6. device 1's realtime listener saw version 1 change: welcome_message")
    }
}
