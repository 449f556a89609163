import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Deploys the real `push-config-worker` binary to a live emulator server, as `functions deploy` does.
@Suite("Deployments: a worker process behind the emulator")
struct DeployRoutesTests {
    /// The worker binary, built into the same folder as this test bundle.
    static var workerBinary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("push-config-worker")
    }

    static func manifest() throws -> JSONValue {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = workerBinary
        process.environment = ["FUNCTIONS_MANIFEST_OUTPUT_PATH": output.path]
        try process.run()
        process.waitUntilExit()
        return try JSONValue(parsing: Data(contentsOf: output))
    }

    static func post(_ url: URL, _ body: JSONValue, headers: [String: String] = [
        "Authorization": "Bearer owner", "Content-Type": "application/json",
    ]) async throws -> (Int, JSONValue?) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body.serializedData()
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONValue(parsing: data))
    }

    @Test("a deployed worker gets Remote Config events over HTTP, and is restarted after it is killed without losing events")
    func deployAndRestart() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        let token = try await emulator.messaging.registerDevice(platform: "ios")
        _ = try await emulator.messaging.subscribe(tokens: [token], to: "PUSH_RC")
        let server = EmulatorServer(emulator: emulator)
        try await server.withRunning { base in
            let projectURL = base.appendingPathComponent("emulator/v1/projects/demo")

            let (status, body) = try await Self.post(projectURL.appendingPathComponent("deployments"), [
                "binary": .string(Self.workerBinary.path), "manifest": try Self.manifest(),
            ])
            #expect(status == 200)
            #expect(body?["functions"]?["pushConfig"]?["instances"]?.arrayValue?.first?["status"] == "running")
            #expect(body?["endpoints"]?["pushConfig"]?["eventTrigger"]?["eventType"]
                == "google.firebase.remoteconfig.remoteConfig.v1.updated")

            let template = try RemoteConfigTemplate.decode(from: Data(#"{"parameters": {"a": {"defaultValue": {"value": "1"}}}}"#.utf8))
            try await emulator.remoteConfig.publish(template, ifMatch: "*")
            await emulator.waitUntilIdle()
            #expect(try emulator.messaging.inbox(token: token).map(\.data) == [["CONFIG_STATE": "STALE"]])

            // Kill the worker: events published while it is down are delivered once it is back.
            let pid = try #require(server.deployments.deployment?.functions["pushConfig"]?.supervisors.first?.processIdentifier)
            kill(pid, SIGKILL)
            try await emulator.remoteConfig.publish(template, ifMatch: "*")
            await emulator.waitUntilIdle()
            let inbox = try emulator.messaging.inbox(token: token)
            let log = try emulator.store.eventLog().map(\.deliveries)
            #expect(inbox.count == 2, "\(log)")
            #expect((server.deployments.deployment?.functions["pushConfig"]?.supervisors.first?.status.restarts ?? 0) >= 1)
            #expect(try emulator.store.eventLog().allSatisfy { $0.done })

            let (badStatus, badBody) = try await Self.post(projectURL.appendingPathComponent("deployments"), [
                "binary": "/nonexistent", "manifest": [:],
            ])
            #expect(badStatus == 400)
            #expect(badBody?["error"]?["message"]?.stringValue?.contains("not an executable") == true)

            // A binary that exits before it serves fails the deployment and keeps the old one.
            let folder = try ScriptBuildFolder()
            let failing = try folder.script("failing", "echo starting up; exit 3")
            let (failedStatus, failedBody) = try await Self.post(projectURL.appendingPathComponent("deployments"), [
                "binary": .string(failing.path), "manifest": try Self.manifest(),
            ])
            #expect(failedStatus == 400)
            let message = failedBody?["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("exited with status 3 before it was ready"), "\(message)")
            #expect(message.contains("starting up"), "\(message)")
            #expect(server.deployments.deployment?.binary == Self.workerBinary)
        }
    }
}
