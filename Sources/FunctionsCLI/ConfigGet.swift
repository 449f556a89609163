import ArgumentParser
import CloudFunctions
import Foundation

/// `functions config:get`: the current (or a historic) Remote Config template.
struct ConfigGet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config:get",
        abstract: "Print the Remote Config template (its ETag goes to stderr)."
    )

    @OptionGroup var target: EmulatorOptions

    @Option(name: .customLong("version"), help: "A historic version number.")
    var versionNumber: Int?

    @Option(name: .shortAndLong, help: "Write the template to this file instead of stdout.")
    var output: String?

    func run() async throws {
        let api = try target.client()
        let query = versionNumber.map { [URLQueryItem(name: "versionNumber", value: String($0))] } ?? []
        let answer = try await api.send("GET", api.projectPath("/remoteConfig"), query: query)
        let template = try answer.json()
        if let etag = answer.headers["etag"] { status("etag \(etag)") }
        guard let output else { return printJSON(template) }
        do {
            try Data((template.indented() + "\n").utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CLIError("cannot write \(output): \(error.localizedDescription)")
        }
        status("version \(template["version"]?["versionNumber"]?.stringValue ?? "?") written to \(output)")
    }
}
