import CloudFunctions
import Foundation
import Testing

/// `config:get`, `config:publish`, `config:versions`, `config:rollback` against a running emulator.
@Suite("functions config:*", .timeLimit(.minutes(5)))
struct ConfigCommandsTests {
    static let template = #"{"parameters": {"welcome": {"defaultValue": {"value": "hello"}}}}"#

    @Test("publish, get, versions and rollback round-trip through the emulator")
    func roundTrip() throws {
        let emulator = try RunningEmulator()
        let first = try emulator.cli("config:publish", "-", input: Self.template)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.hasPrefix("published version 1 (etag "))

        let second = try emulator.cli("config:publish", "-",
            input: #"{"parameters": {"welcome": {"defaultValue": {"value": "hi"}}}}"#)
        #expect(second.output.hasPrefix("published version 2"))

        let current = try emulator.cli("config:get")
        #expect(current.status == 0)
        let template = try JSONValue(parsing: Data(current.output.utf8))
        #expect(template["parameters"]?["welcome"]?["defaultValue"]?["value"] == "hi")
        #expect(template["version"]?["versionNumber"] == "2")
        #expect(current.errors.contains("etag etag-"))

        let historic = try emulator.cli("config:get", "--version", "1")
        #expect(try JSONValue(parsing: Data(historic.output.utf8))["parameters"]?["welcome"]?["defaultValue"]?["value"]
            == "hello")

        let rollback = try emulator.cli("config:rollback", "1")
        #expect(rollback.status == 0, "\(rollback.errors)")
        #expect(rollback.output.hasPrefix("rolled back to version 1: now version 3"))

        let versions = try emulator.cli("config:versions")
        let lines = versions.output.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("3\t") == true)
        #expect(lines.first?.contains("ROLLBACK") == true)
        #expect(lines.first?.contains("from 1") == true)
    }

    @Test("a stale --etag is refused with the service's message and nothing changes")
    func staleETag() throws {
        let emulator = try RunningEmulator()
        _ = try emulator.cli("config:publish", "-", input: Self.template)
        let stale = try emulator.cli("config:publish", "-", "--etag", "etag-demo-project-0", input: Self.template)
        #expect(stale.status != 0)
        #expect(stale.errors.contains("HTTP 412"), "\(stale.errors)")
        #expect(try emulator.cli("config:versions").output.split(separator: "\n").count == 1)

        let forced = try emulator.cli("config:publish", "-", "--force", input: Self.template)
        #expect(forced.output.hasPrefix("published version 2"))
    }

    @Test("bad input: a file that is not JSON, an invalid template, an unknown version, both --etag and --force")
    func badInput() throws {
        let emulator = try RunningEmulator()
        let notJSON = try emulator.cli("config:publish", "-", input: "{parameters")
        #expect(notJSON.status != 0)
        #expect(notJSON.errors.contains("is not valid JSON"))

        let invalid = try emulator.cli("config:publish", "-",
            input: #"{"parameters": {"1bad key": {"defaultValue": {"value": "x"}}}}"#)
        #expect(invalid.status != 0)
        #expect(invalid.errors.contains("HTTP 400"), "\(invalid.errors)")

        let missing = try emulator.cli("config:rollback", "7")
        #expect(missing.status != 0)
        #expect(missing.errors.contains("HTTP 404"), "\(missing.errors)")

        let both = try emulator.cli("config:publish", "x.json", "--etag", "e", "--force")
        #expect(both.status != 0)
        #expect(both.errors.contains("give --etag or --force, not both"))
    }

    @Test("an emulator that does not answer is one clear line and a non-zero exit")
    func unreachable() throws {
        let result = try CLIProcess.run(["config:get", "--emulator", "http://127.0.0.1:1"])
        #expect(result.status != 0)
        #expect(result.errors.contains("cannot reach the emulator at http://127.0.0.1:1"))
        #expect(result.errors.split(separator: "\n").count == 1)
    }
}

/// `config:import --from parse`.
@Suite("functions config:import", .timeLimit(.minutes(5)))
struct ConfigImportTests {
    static let parseConfig = #"""
        {"params": {"welcome": "Hello", "dark_mode": true, "max_items": 25, "ratio": 0.5,
                    "tiers": ["gold", "silver"], "banner": {"title": "Sale", "weight": 3},
                    "launch": {"__type": "Date", "iso": "2015-06-01T09:00:00.000Z"},
                    "logo": {"__type": "File", "name": "logo.png", "url": "https://files.example.com/logo.png"},
                    "secret": "s3cr3t", "unset": null},
         "masterKeyOnly": {"secret": true}}
        """#

    @Test("imports a Parse Config as typed parameters, merged into the current template and published")
    func importParse() throws {
        let emulator = try RunningEmulator()
        _ = try emulator.cli("config:publish", "-", "--force",
            input: #"{"parameters": {"kept": {"defaultValue": {"value": "yes"}}, "welcome": {"defaultValue": {"value": "old"}}}}"#)
        let run = try emulator.cli("config:import", "-", "--from", "parse", input: Self.parseConfig)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("imported 8 parameters (banner, dark_mode, launch, logo, max_items, ratio, tiers, welcome) as version 2"))
        let template = try JSONValue(parsing: Data(try emulator.cli("config:get").output.utf8))
        let parameters = try #require(template["parameters"])
        #expect(parameters["kept"]?["defaultValue"]?["value"] == "yes")
        #expect(parameters["welcome"] == ["defaultValue": ["value": "Hello"], "valueType": "STRING"])
        #expect(parameters["dark_mode"] == ["defaultValue": ["value": "true"], "valueType": "BOOLEAN"])
        #expect(parameters["max_items"] == ["defaultValue": ["value": "25"], "valueType": "NUMBER"])
        #expect(parameters["ratio"]?["defaultValue"]?["value"] == "0.5")
        #expect(parameters["tiers"] == ["defaultValue": ["value": #"["gold","silver"]"#], "valueType": "JSON"])
        #expect(parameters["banner"]?["defaultValue"]?["value"] == #"{"title":"Sale","weight":3}"#)
        #expect(parameters["launch"]?["defaultValue"]?["value"] == "2015-06-01T09:00:00.000Z")
        #expect(parameters["logo"]?["defaultValue"]?["value"] == "https://files.example.com/logo.png")
        #expect(parameters["secret"] == nil)
        #expect(parameters["unset"] == nil)

        let replaced = try emulator.cli("config:import", "-", "--replace", "--include-master-key-only",
            input: Self.parseConfig)
        #expect(replaced.status == 0, "\(replaced.errors)")
        let after = try JSONValue(parsing: Data(try emulator.cli("config:get").output.utf8))
        #expect(after["parameters"]?["kept"] == nil)
        #expect(after["parameters"]?["secret"]?["defaultValue"]?["value"] == "s3cr3t")
    }

    @Test("a file that is not a Parse Config is one clear error and publishes nothing")
    func badInput() throws {
        let emulator = try RunningEmulator()
        let run = try emulator.cli("config:import", "-", input: #"{"parameters": {}}"#)
        #expect(run.status != 0)
        #expect(run.errors.contains("is not a Parse Config export"), "\(run.errors)")
        #expect(try emulator.cli("config:versions").output == "no versions published yet\n")
    }
}
