import ArgumentParser
import CloudFunctions
import Foundation

/// `functions config:rollback N`: publishes an earlier version again, as a new version.
struct ConfigRollback: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config:rollback",
        abstract: "Roll the Remote Config template back to an earlier version (published as a new version)."
    )

    @OptionGroup var target: EmulatorOptions

    @Argument(help: "The version number to roll back to.")
    var version: Int

    func validate() throws {
        guard version > 0 else { throw ValidationError("the version number must be positive") }
    }

    func run() async throws {
        let api = try target.client()
        let answer = try await api.send("POST", api.projectPath("/remoteConfig:rollback"),
            json: ["versionNumber": .string(String(version))])
        let template = try answer.json()
        print("rolled back to version \(version): now version "
            + "\(template["version"]?["versionNumber"]?.stringValue ?? "?") (etag \(answer.headers["etag"] ?? "?"))")
    }
}
