import ArgumentParser
import Foundation

/// The options every command that talks to a running emulator shares.
struct EmulatorOptions: ParsableArguments {
    @Option(help: "The emulator's base URL (default: $FUNCTIONS_EMULATOR_URL or http://127.0.0.1:4400).")
    var emulator: String?

    @Option(help: "The project id (default: $GCLOUD_PROJECT or demo-project).")
    var project: String?

    /// The emulator to talk to.
    func client() throws -> EmulatorAPI {
        let environment = ProcessInfo.processInfo.environment
        let text = emulator ?? environment["FUNCTIONS_EMULATOR_URL"] ?? "http://127.0.0.1:4400"
        guard let base = URL(string: text), base.scheme == "http" || base.scheme == "https", base.host != nil else {
            throw ValidationError("--emulator must be an http URL, not '\(text)'")
        }
        return EmulatorAPI(base: base, project: project ?? environment["GCLOUD_PROJECT"] ?? "demo-project")
    }
}
