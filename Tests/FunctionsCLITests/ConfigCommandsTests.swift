import CloudFunctions
import Foundation
import Testing

/// `config:get`, `config:publish`, `config:versions`, `config:rollback` against a running emulator.
@Suite("functions config:*")
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
