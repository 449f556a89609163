import CloudFunctions
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The options of the CLI's commands, each checked by its effect: a test here fails when the
/// option is ignored.
@Suite("functions: every option has its effect", .timeLimit(.minutes(5)))
struct CLIOptionsTests {
    static let template = #"{"parameters": {"welcome": {"defaultValue": {"value": "hello"}}, "size": {"defaultValue": {"value": "m"}}}}"#

    @Test("emulators:start --host and --max-body")
    func hostAndMaxBody() throws {
        let emulator = try RunningEmulator(arguments: ["--port", "0", "--host", "localhost", "--max-body", "64"])
        #expect(emulator.base.host == "localhost")
        let small = try emulator.cli("database:set", "/a", "1")
        #expect(small.status == 0, "\(small.errors)")
        let large = try emulator.cli("database:set", "/a", "\"" + String(repeating: "x", count: 100) + "\"")
        #expect(large.status != 0)
        #expect(large.errors.contains("413"), "\(large.errors)")
    }

    @Test("emulators:start --instance-idle-timeout stops idle instances of a scaled-out function that soon; --log-level info shows it")
    func instanceIdleTimeout() async throws {
        #expect(try CLIProcess.run(["emulators:start", "--port", "0", "--instance-idle-timeout", "0"]).status != 0)
        let emulator = try RunningEmulator(arguments: ["--port", "0", "--instance-idle-timeout", "0.3", "--log-level", "info"])
        // The rehearsal worker's oneAtATime takes one event per instance, up to three instances.
        let worker = CLIProcess.product("rehearsal-worker")
        let manifestFile = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: manifestFile) }
        let process = Process()
        process.executableURL = worker
        process.environment = ["FUNCTIONS_MANIFEST_OUTPUT_PATH": manifestFile.path]
        try process.run()
        process.waitUntilExit()
        let manifest = try JSONValue(parsing: Data(contentsOf: manifestFile))
        _ = try await emulator.request("POST", "/emulator/v1/projects/demo-project/deployments",
            ["binary": .string(worker.path), "manifest": manifest, "only": ["oneAtATime"]])
        func instances() async throws -> Int {
            let functions = try await emulator.request("GET", "/emulator/v1/projects/demo-project/functions")
            return functions["functions"]?["oneAtATime"]?["instances"]?.arrayValue?.count ?? 0
        }
        // The emulator logs each instance it starts and each idle one it stops.
        var lines = emulator.logLines.makeAsyncIterator()
        var (started, stopped) = (0, 0)
        func readLine() async -> Bool {
            guard let line = await lines.next() else { return false }
            if line.contains("starting another instance") { started += 1 }
            if line.contains("stopping an idle instance") { stopped += 1 }
            return true
        }
        for _ in 0..<3 {
            let published = try emulator.cli("config:publish", "-", "--force",
                input: #"{"parameters": {}, "version": {"description": "slow"}}"#)
            #expect(published.status == 0, "\(published.errors)")
        }
        while started == 0, await readLine() {}
        #expect(started > 0, "slow events on a one-at-a-time function start more instances")
        _ = try await emulator.request("GET", "/emulator/v1/projects/demo-project/events?wait=true")
        // Idle for 0.3 s, each extra instance is stopped (the default, a minute, would outlast
        // the suite's time limit): back to one.
        while true {
            if stopped == started, try await instances() == 1 { break }
            guard await readLine() else { break }
        }
        #expect(stopped == started)
        #expect(try await instances() == 1)
    }

    @Test("emulators:start --data-dir keeps state there; --in-memory keeps none")
    func dataDirectory() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-data-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("state")
        do {
            let emulator = try RunningEmulator(arguments: ["--port", "0", "--data-dir", data.path], inMemory: false,
                directory: folder)
            #expect(try emulator.cli("config:publish", "-", input: Self.template).status == 0)
        }
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("emulator.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".functions").path))
        do {
            let again = try RunningEmulator(arguments: ["--port", "0", "--data-dir", data.path], inMemory: false,
                directory: folder)
            #expect(try again.cli("config:versions").output.split(separator: "\n").count == 1)
        }
        do {
            let memory = try RunningEmulator(arguments: ["--port", "0"], directory: folder)
            #expect(try memory.cli("config:publish", "-", input: Self.template).status == 0)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".functions").path))
    }

    @Test("config:get -o, config:publish --validate-only, config:versions --limit and --json")
    func configOptions() throws {
        let emulator = try RunningEmulator()
        let validated = try emulator.cli("config:publish", "-", "--validate-only", input: Self.template)
        #expect(validated.status == 0, "\(validated.errors)")
        #expect(validated.output.hasPrefix("valid: 2 parameters"), "\(validated.output)")
        #expect(try emulator.cli("config:versions").output.hasPrefix("no versions published yet"))
        for _ in 0..<3 { _ = try emulator.cli("config:publish", "-", "--force", input: Self.template) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("template-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let written = try emulator.cli("config:get", "-o", file.path)
        #expect(written.status == 0)
        #expect(written.output.isEmpty)
        #expect(try JSONValue(parsing: Data(contentsOf: file))["version"]?["versionNumber"] == "3")
        let limited = try emulator.cli("config:versions", "--limit", "2").output.split(separator: "\n")
        #expect(limited.count == 2)
        #expect(limited.first?.hasPrefix("3\t") == true && limited.last?.hasPrefix("2\t") == true)
        let json = try JSONValue(parsing: Data(try emulator.cli("config:versions", "--json").output.utf8))
        #expect(json["versions"]?.arrayValue?.map { $0["versionNumber"] } == ["3", "2", "1"])
    }

    @Test("emulators:start --firestore --pubsub starts Google's emulators; emulators:env points clients at all of them")
    func googleEmulatorsAndEnv() async throws {
        let emulator = try RunningEmulator(arguments: ["--port", "0", "--firestore", "--pubsub"])
        let printed = try emulator.cli("emulators:env")
        #expect(printed.status == 0, "\(printed.errors)")
        var variables: [String: String] = [:]
        for line in printed.output.split(separator: "\n") {
            #expect(line.hasPrefix("export "), "\(line)")
            let assignment = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
            variables[String(assignment[0])] = String(assignment[1])
        }
        let own = try #require(emulator.base.host).appending(":\(try #require(emulator.base.port))")
        #expect(variables["FIREBASE_DATABASE_EMULATOR_HOST"] == own)
        #expect(variables["FIREBASE_AUTH_EMULATOR_HOST"] == own)
        #expect(variables["GCLOUD_PROJECT"] == "demo-project")
        for name in ["FIRESTORE_EMULATOR_HOST", "PUBSUB_EMULATOR_HOST"] {
            let address = try #require(variables[name], "\(name) missing from \(printed.output)")
            #expect(address != own)
            // Google's emulator answers there.
            let (body, _) = try await URLSession.shared.data(from: URL(string: "http://\(address)/")!)
            #expect(String(decoding: body, as: UTF8.self).hasPrefix("Ok"), "\(name)")
        }
    }

    @Test("database:get and database:set --instance; database:get --limit-to-first")
    func databaseOptions() throws {
        let emulator = try RunningEmulator()
        #expect(try emulator.cli("database:set", "/a", "1", "--instance", "other-rtdb").status == 0)
        #expect(try emulator.cli("database:get", "/a").output.trimmingCharacters(in: .whitespacesAndNewlines) == "null")
        #expect(try emulator.cli("database:get", "/a", "--instance", "other-rtdb").output
            .trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        _ = try emulator.cli("database:set", "/scores",
            #"{"s1": {"score": 30}, "s2": {"score": 9}, "s3": {"score": 20}}"#)
        let first = try emulator.cli("database:get", "/scores", "--order-by", "score", "--limit-to-first", "1")
        #expect(try JSONValue(parsing: Data(first.output.utf8)) == ["s2": ["score": 9]], "\(first.output)")
    }

    @Test("database:import --instance; --from takes only parse")
    func databaseImportOptions() throws {
        let emulator = try RunningEmulator()
        let export = #"{"results": [{"objectId": "o1", "playerName": "ada", "score": 3}]}"#
        let imported = try emulator.cli("database:import", "-", "--path", "/x", "--instance", "other-rtdb",
            input: export)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(try emulator.cli("database:get", "/x/o1/score", "--instance", "other-rtdb").output
            .trimmingCharacters(in: .whitespacesAndNewlines) == "3")
        #expect(try emulator.cli("database:get", "/x").output.trimmingCharacters(in: .whitespacesAndNewlines)
            == "null")
        for command in ["database:import", "config:import"] {
            let other = try emulator.cli(command, "-", "--path", "/y", "--from", "firebase", input: export)
            #expect(other.status != 0)
            #expect(other.errors.contains("parse"), "\(other.errors)")
        }
    }

    @Test("messaging:send --token, --condition, --title/--body, --message and --dry-run")
    func messagingOptions() async throws {
        let emulator = try RunningEmulator()
        func device() async throws -> String {
            try #require(try await emulator.request("POST", "/emulator/v1/projects/demo-project/devices",
                ["platform": "ios"])["token"]?.stringValue)
        }
        func inbox(_ token: String) throws -> [JSONValue] {
            try JSONValue(parsing: Data(try emulator.cli("messaging:inbox", token, "--json").output.utf8))[
                "messages"]?.arrayValue ?? []
        }
        let (a, b) = (try await device(), try await device())
        try await emulator.request("POST", "/iid/v1:batchAdd", ["to": "/topics/x", "registration_tokens": [.string(a), .string(b)]])
        try await emulator.request("POST", "/iid/v1:batchAdd", ["to": "/topics/y", "registration_tokens": [.string(a)]])

        #expect(try emulator.cli("messaging:send", "--token", a, "--data", "k=direct").status == 0)
        #expect(try inbox(a).map { $0["data"] } == [["k": "direct"]])
        #expect(try inbox(b).isEmpty)

        #expect(try emulator.cli("messaging:send", "--condition", "'x' in topics && 'y' in topics", "--data",
            "k=both").status == 0)
        #expect(try inbox(a).count == 2)
        #expect(try inbox(b).isEmpty)

        #expect(try emulator.cli("messaging:send", "--topic", "x", "--title", "Hi", "--body", "There").status == 0)
        #expect(try inbox(b).map { $0["notification"] } == [["title": "Hi", "body": "There"]])

        let message = #"{"token": "\#(b)", "data": {"k": "from-file"}}"#
        #expect(try emulator.cli("messaging:send", "--message", "-", input: message).status == 0)
        #expect(try inbox(b).last?["data"] == ["k": "from-file"])

        let dry = try emulator.cli("messaging:send", "--topic", "x", "--data", "k=dry", "--dry-run")
        #expect(dry.status == 0, "\(dry.errors)")
        #expect(try inbox(b).count == 2, "a dry run delivers nothing")
    }

    @Test("messaging:import --broadcast-topic; --from takes only parse")
    func messagingImportOptions() async throws {
        let emulator = try RunningEmulator()
        let export = #"{"results": [{"objectId": "i1", "deviceType": "ios", "deviceToken": "\#(String(repeating: "ab", count: 32))", "channels": [""]}]}"#
        let imported = try emulator.cli("messaging:import", "-", "--application", "com.example.app",
            "--broadcast-topic", "everyone", input: export)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("everyone"), "\(imported.output)")
        #expect(!imported.output.contains("all ("), "\(imported.output)")
        #expect(try emulator.cli("messaging:send", "--topic", "everyone", "--data", "n=1").output.hasPrefix("projects/"))
        let other = try emulator.cli("messaging:import", "-", "--application", "x", "--from", "firebase", input: export)
        #expect(other.status != 0)
        #expect(other.errors.contains("parse"), "\(other.errors)")
    }

    @Test("functions:list --json; trigger --event and --type; events:log --limit and --function; demo --topic")
    func deployedOptions() async throws {
        let emulator = try RunningEmulator()
        try await EventsAndTriggerTests.deployWorker(to: emulator)
        let list = try JSONValue(parsing: Data(try emulator.cli("functions:list", "--json").output.utf8))
        #expect(list["endpoints"]?["pushConfig"]?["eventTrigger"]?["eventType"]
            == "google.firebase.remoteconfig.remoteConfig.v1.updated")
        #expect(list["functions"]?["pushConfig"]?["instances"]?.arrayValue?.first?["status"] == "running")

        let event = #"{"id": "hand-1", "type": "google.firebase.remoteconfig.remoteConfig.v1.updated", "data": {"versionNumber": "9", "updateType": "INCREMENTAL_UPDATE", "updateOrigin": "CONSOLE"}}"#
        let fired = try emulator.cli("trigger", "pushConfig", "--event", "-", input: event)
        #expect(fired.status == 0, "\(fired.errors)")
        #expect(fired.output.contains("hand-1") && fired.output.contains("succeeded"), "\(fired.output)")
        let typed = try emulator.cli("trigger", "pushConfig", "--type", "com.example.custom", "--data",
            #"{"versionNumber": "9"}"#)
        #expect((typed.output + typed.errors).contains("com.example.custom"), "\(typed.output) \(typed.errors)")
        #expect((typed.output + typed.errors).contains("failed"), "the worker refuses another event type")

        for _ in 0..<2 { _ = try emulator.cli("config:publish", "-", "--force", input: Self.template) }
        _ = try emulator.cli("database:set", "/plain", "1")
        let all = try JSONValue(parsing: Data(try emulator.cli("events:log", "--json", "--wait").output.utf8))[
            "events"]?.arrayValue ?? []
        let last = try JSONValue(parsing: Data(try emulator.cli("events:log", "--json", "--limit", "1").output.utf8))[
            "events"]?.arrayValue ?? []
        #expect(last.count == 1 && all.count == 2)
        #expect(last.first?["id"] == all.last?["id"])
        let none = try emulator.cli("events:log", "--function", "nope")
        #expect(none.output.hasPrefix("no events"), "\(none.output)")
        let mine = try JSONValue(parsing: Data(try emulator.cli("events:log", "--json", "--function", "pushConfig")
            .output.utf8))["events"]?.arrayValue ?? []
        #expect(mine.count == 2)

        let demo = try emulator.cli("demo:stale-loop", "--devices", "1", "--others", "0", "--topic", "OTHER")
        #expect(demo.output.contains("1 devices on OTHER"), "\(demo.output)")
        #expect(demo.output.contains("reached 0 devices"), "pushConfig pings PUSH_RC only: \(demo.output)")
    }

    @Test("config:import --validate-only publishes nothing; deploy --source names the package to build")
    func validateOnlyAndSource() throws {
        let emulator = try RunningEmulator()
        _ = try emulator.cli("config:publish", "-", "--force", input: Self.template)
        let checked = try emulator.cli("config:import", "-", "--validate-only", input: ConfigImportTests.parseConfig)
        #expect(checked.status == 0, "\(checked.errors)")
        #expect(checked.output.hasPrefix("valid: 8 parameters"), "\(checked.output)")
        #expect(try emulator.cli("config:versions").output.split(separator: "\n").count == 1)
        let missing = try emulator.cli("deploy", "--source", "/nonexistent-functions")
        #expect(missing.status != 0)
        #expect(missing.errors.contains("/nonexistent-functions"), "\(missing.errors)")
    }

    @Test("--project picks the project every call goes to")
    func project() throws {
        let emulator = try RunningEmulator()
        let published = try CLIProcess.run(["config:publish", "-", "--emulator", emulator.base.absoluteString,
            "--project", "other-project"], input: Self.template)
        #expect(published.status == 0, "\(published.errors)")
        let other = try CLIProcess.run(["config:versions", "--emulator", emulator.base.absoluteString,
            "--project", "other-project"])
        #expect(other.output.split(separator: "\n").count == 1, "\(other.output)")
        #expect(try emulator.cli("config:versions").output.hasPrefix("no versions published yet"))
    }
}
