import ArgumentParser
import CloudFunctions
import Foundation

/// `functions emulators:export DIR`: the running emulator's whole state as JSON files.
struct EmulatorsExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulators:export",
        abstract: "Write the running emulator's state to a directory (start from it with emulators:start --import).",
        discussion: """
            Remote Config versions, database trees, users with their bcrypt hashes, devices, subscriptions and \
            inboxes, and analytics events, as JSON files. The emulator writes them, so DIR is on its machine.
            """
    )

    @OptionGroup var target: EmulatorOptions

    @Argument(help: "The directory to write (created if needed).")
    var directory: String

    func run() async throws {
        let api = try target.client()
        let path = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL.path
        try await api.send("POST", api.emulatorPath("/export"), json: ["path": .string(path)], timeout: 600)
        print("exported to \(path)")
    }
}
