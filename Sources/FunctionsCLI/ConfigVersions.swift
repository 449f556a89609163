import ArgumentParser
import CloudFunctions
import Foundation

/// `functions config:versions`: the template's versions, newest first.
struct ConfigVersions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config:versions",
        abstract: "List the Remote Config template's versions, newest first."
    )

    @OptionGroup var target: EmulatorOptions

    @Option(help: "How many versions to show.")
    var limit = 10

    @Flag(help: "Print the emulator's JSON answer.")
    var json = false

    func validate() throws {
        guard (1...300).contains(limit) else { throw ValidationError("--limit must be between 1 and 300") }
    }

    func run() async throws {
        let api = try target.client()
        let answer = try await api.send("GET", api.projectPath("/remoteConfig:listVersions"),
            query: [URLQueryItem(name: "pageSize", value: String(limit))]).json()
        if json { return printJSON(answer) }
        let versions = answer["versions"]?.arrayValue ?? []
        if versions.isEmpty { print("no versions published yet") }
        for version in versions {
            let fields = [
                version["versionNumber"]?.stringValue ?? "?",
                version["updateTime"]?.stringValue ?? "",
                version["updateType"]?.stringValue ?? "",
                version["updateOrigin"]?.stringValue ?? "",
                version["rollbackSource"]?.stringValue.map { "from \($0)" } ?? "",
                version["description"]?.stringValue ?? "",
            ]
            print(fields.filter { !$0.isEmpty }.joined(separator: "\t"))
        }
    }
}
