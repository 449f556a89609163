import CloudFunctions
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the built `functions` binary as a user would.
@Suite("functions emulators:start", .timeLimit(.minutes(5)))
struct EmulatorsStartTests {
    static var binary: URL {
        // The test bundle sits next to the products in the build folder.
        let products = Bundle.main.bundleURL.deletingLastPathComponent()
        let direct = products.appendingPathComponent("functions")
        if FileManager.default.isExecutableFile(atPath: direct.path) { return direct }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("functions")
    }

    @Test("prints the ready line with a free port, serves requests, and stops on SIGTERM")
    func startsAndStops() async throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["emulators:start", "--port", "0", "--in-memory"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // Read until the ready line; an empty read means the process ended without one.
        var text = ""
        while !text.contains("\n") || !text.contains("ready: ") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ready: ") })
        let base = try #require(URL(string: String(line.dropFirst("ready: ".count))))
        #expect(base.host == "127.0.0.1")
        #expect((base.port ?? 0) > 0)

        let (data, response) = try await URLSession.shared.data(
            from: base.appendingPathComponent("emulator/v1/projects/demo-project/events")
        )
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"events":[]}"#)

        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test("rejects bad arguments with one clear line and a non-zero exit")
    func badArguments() throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["emulators:start", "--port", "70000"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus != 0)
        #expect(message.contains("--port must be between 0 and 65535"))
    }
}

/// `emulators:start --config firebase.json`.
@Suite("functions emulators:start --config", .timeLimit(.minutes(5)))
struct EmulatorsStartConfigTests {
    static func folder(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("firebase-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    @Test("takes the host and port from emulators.functions and starts with the remoteconfig.template")
    func portAndTemplate() throws {
        let folder = try Self.folder([
            "firebase.json": #"{"emulators": {"functions": {"host": "localhost", "port": 0}}, "remoteconfig": {"template": "rc.json"}}"#,
            "rc.json": #"{"parameters": {"welcome": {"defaultValue": {"value": "from firebase.json"}}}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let emulator = try RunningEmulator(arguments: ["--config", folder.appendingPathComponent("firebase.json").path])
        // Without the config the emulator would listen on 127.0.0.1:4400.
        #expect(emulator.base.host == "localhost")
        #expect(emulator.base.port != 4400 && (emulator.base.port ?? 0) > 0)
        let template = try JSONValue(parsing: Data(try emulator.cli("config:get").output.utf8))
        #expect(template["parameters"]?["welcome"]?["defaultValue"]?["value"] == "from firebase.json")
        #expect(template["version"]?["versionNumber"] == "1")
    }

    @Test("a config with a bad port or a missing template file is one clear error")
    func badConfig() throws {
        let folder = try Self.folder([
            "bad-port.json": #"{"emulators": {"functions": {"port": "high"}}}"#,
            "no-template.json": #"{"remoteconfig": {"template": "missing.json"}, "emulators": {"functions": {"port": 0}}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let badPort = try CLIProcess.run(["emulators:start", "--in-memory", "--config",
            folder.appendingPathComponent("bad-port.json").path])
        #expect(badPort.status != 0)
        #expect(badPort.errors.contains("emulators.functions.port must be a port number"), "\(badPort.errors)")
        let noTemplate = try CLIProcess.run(["emulators:start", "--in-memory", "--config",
            folder.appendingPathComponent("no-template.json").path])
        #expect(noTemplate.status != 0)
        #expect(noTemplate.errors.contains("cannot read the Remote Config template"), "\(noTemplate.errors)")
    }
}

/// `emulators:start` with Realtime Database security rules.
@Suite("functions emulators:start: database rules", .timeLimit(.minutes(5)))
struct EmulatorsStartRulesTests {
    static let rules = #"{"rules": {"open": {".read": true, ".write": true}}}"#

    @Test("rules from firebase.json's database.rules or --database-rules are enforced for clients")
    func enforced() async throws {
        let folder = try EmulatorsStartConfigTests.folder([
            "firebase.json": #"{"database": {"rules": "database.rules.json"}}"#, "database.rules.json": Self.rules,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        for arguments in [["--config", folder.appendingPathComponent("firebase.json").path],
            ["--database-rules", folder.appendingPathComponent("database.rules.json").path]]
        {
            let emulator = try RunningEmulator(arguments: ["--port", "0"] + arguments)
            let closed = try await URLSession.shared.data(from: URL(string: emulator.base.absoluteString
                + "/closed.json?ns=demo-project-default-rtdb")!)
            #expect((closed.1 as? HTTPURLResponse)?.statusCode == 401)
            #expect(String(decoding: closed.0, as: UTF8.self) == #"{"error":"Permission denied"}"#)
            let open = try await URLSession.shared.data(from: URL(string: emulator.base.absoluteString
                + "/open.json?ns=demo-project-default-rtdb")!)
            #expect((open.1 as? HTTPURLResponse)?.statusCode == 200)
        }
    }

    @Test("a broken rules file stops the start with the file, line and column; no rules file is a warning")
    func broken() throws {
        let folder = try EmulatorsStartConfigTests.folder([
            "database.rules.json": "{\"rules\": {\n  \".write\": \"auth.uid == $user\"\n}}",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("database.rules.json").path
        let run = try CLIProcess.run(["emulators:start", "--in-memory", "--port", "0", "--database-rules", file])
        #expect(run.status != 0)
        #expect(run.errors.contains("\(file):2:26: Unknown variable '$user'."), "\(run.errors)")
        #expect(!run.output.contains("ready: "))
        let missing = try CLIProcess.run(["emulators:start", "--in-memory", "--port", "0", "--database-rules",
            folder.appendingPathComponent("nope.json").path])
        #expect(missing.status != 0)
        #expect(missing.errors.contains("cannot read the database rules"))
    }
}

/// `emulators:start --rc-fetch-limit COUNT/SECONDS`.
@Suite("functions emulators:start --rc-fetch-limit", .timeLimit(.minutes(5)))
struct EmulatorsStartFetchLimitTests {
    @Test("an app instance over the limit gets 429 RESOURCE_EXHAUSTED; another instance does not")
    func fetchLimit() async throws {
        let emulator = try RunningEmulator(arguments: ["--port", "0", "--rc-fetch-limit", "1/3600"])
        func fetch(_ instance: String) async throws -> Int {
            var request = URLRequest(url: emulator.base.appendingPathComponent(
                "v1/projects/demo-project/namespaces/firebase:fetch"))
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"app_instance_id": "\#(instance)", "app_id": "1:1:ios:1"}"#.utf8)
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
        #expect(try await fetch("instance-a") == 200)
        #expect(try await fetch("instance-a") == 429)
        #expect(try await fetch("instance-b") == 200)
    }
}

/// `emulators:export` and `emulators:start --import`.
@Suite("functions emulators:export and --import", .timeLimit(.minutes(5)))
struct EmulatorsExportImportTests {
    @Test("a running emulator's state exported to a directory is the state of one started with --import")
    func roundTrip() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let first = try RunningEmulator()
            #expect(try first.cli("config:publish", "-", "--force",
                input: #"{"parameters": {"color": {"defaultValue": {"value": "green"}}}}"#).status == 0)
            #expect(try first.cli("database:set", "/scores/s1", #"{"points": 3}"#).status == 0)
            try await first.request("POST", "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts",
                ["localId": "ada", "email": "ada@example.com", "password": "secret1"])
            let exported = try first.cli("emulators:export", folder.path)
            #expect(exported.status == 0, "\(exported.errors)")
            #expect(exported.output == "exported to \(folder.standardizedFileURL.path)\n")
        }
        let second = try RunningEmulator(arguments: ["--port", "0", "--import", folder.path])
        let template = try JSONValue(parsing: Data(try second.cli("config:get").output.utf8))
        #expect(template["parameters"]?["color"]?["defaultValue"]?["value"] == "green")
        #expect(try second.cli("database:get", "/scores").output.contains("\"points\": 3"))
        let signIn = try await second.request("POST",
            "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
            ["email": "ada@example.com", "password": "secret1"])
        #expect(signIn["localId"] == "ada", "\(signIn)")
    }

    @Test("a missing import directory or a relative export path is one clear error")
    func errors() async throws {
        let missing = try CLIProcess.run(["emulators:start", "--in-memory", "--port", "0", "--import", "/nonexistent-dir"])
        #expect(missing.status != 0)
        #expect(missing.errors.contains("cannot import /nonexistent-dir"), "\(missing.errors)")
        let emulator = try RunningEmulator()
        let answer = try await emulator.request("POST", "/emulator/v1/projects/demo-project/export", ["path": "relative"])
        #expect(answer["error"]?["message"] == "path must be an absolute directory path")
    }
}
