import ArgumentParser
import CloudFunctions
import Foundation

/// `functions messaging:inbox TOKEN`: the messages delivered to an emulated device.
struct MessagingInbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messaging:inbox",
        abstract: "Print the messages delivered to an emulated device token."
    )

    @OptionGroup var target: EmulatorOptions

    @Argument(help: "The device token (from POST /emulator/v1/projects/{p}/devices).")
    var token: String

    @Flag(help: "Print the emulator's JSON answer.")
    var json = false

    func run() async throws {
        let api = try target.client()
        let answer = try await api.send("GET", api.emulatorPath("/devices/\(token)/messages")).json()
        if json { return printJSON(answer) }
        let messages = answer["messages"]?.arrayValue ?? []
        if messages.isEmpty { print("no messages for \(token)") }
        for message in messages {
            let via = message["topic"]?.stringValue.map { "topic \($0)" } ?? "direct"
            let data = message["data"].map { $0.serialized(sortedKeys: true) } ?? "{}"
            print("\(message["sendTime"]?.stringValue ?? "?")\t\(via)\tdata \(data)")
        }
    }
}
