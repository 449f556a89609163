import ArgumentParser
import CloudFunctions
import Foundation

/// `functions messaging:send`: sends an FCM HTTP v1 message through the emulator.
struct MessagingSend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messaging:send",
        abstract: "Send an FCM message to a topic, a device token or a condition.",
        discussion: """
            Example: functions messaging:send --topic PUSH_RC --data CONFIG_STATE=STALE --content-available. \
            --message FILE sends a whole FCM v1 message object instead.
            """
    )

    @OptionGroup var target: EmulatorOptions

    @Option(help: "The topic.")
    var topic: String?

    @Option(help: "The device registration token.")
    var token: String?

    @Option(help: "A topic condition, e.g. \"'a' in topics && 'b' in topics\".")
    var condition: String?

    @Option(help: "A data entry KEY=VALUE (repeatable).")
    var data: [String] = []

    @Option(help: "The notification title.")
    var title: String?

    @Option(help: "The notification body.")
    var body: String?

    @Flag(
        name: .customLong("content-available"),
        help: "A silent push: APNs content-available 1, Android high priority.")
    var contentAvailable = false

    @Option(help: "Send this FCM v1 message object (a JSON file, '-' = stdin) instead.")
    var message: String?

    @Flag(name: .customLong("dry-run"), help: "Validate without sending (validateOnly).")
    var dryRun = false

    func validate() throws {
        let targets = [topic, token, condition].compactMap { $0 }.count
        if message == nil, targets != 1 { throw ValidationError("give exactly one of --topic, --token, --condition") }
        if message != nil, targets + data.count > 0 || title != nil || body != nil || contentAvailable {
            throw ValidationError("--message replaces the other message options")
        }
        for entry in data where !entry.contains("=") || entry.hasPrefix("=") {
            throw ValidationError("--data takes KEY=VALUE with a key, not '\(entry)'")
        }
    }

    func run() async throws {
        let api = try target.client()
        let payload = try message.map(readJSONFile) ?? built()
        let answer = try await api.send("POST", api.projectPath("/messages:send"),
            json: ["message": payload, "validateOnly": .bool(dryRun)]).json()
        print(answer["name"]?.stringValue ?? answer.serialized())
    }

    private func built() -> JSONValue {
        var message: [String: JSONValue] = [:]
        if let topic { message["topic"] = .string(topic) }
        if let token { message["token"] = .string(token) }
        if let condition { message["condition"] = .string(condition) }
        if !data.isEmpty {
            message["data"] = .object(Dictionary(data.map { entry -> (String, JSONValue) in
                let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), .string(String(parts[1])))
            }) { _, last in last })
        }
        if title != nil || body != nil {
            message["notification"] = .object(["title": title.map(JSONValue.string), "body": body.map(JSONValue.string)]
                .compactMapValues { $0 })
        }
        if contentAvailable {
            message["apns"] = [
                "headers": ["apns-priority": "5", "apns-push-type": "background"],
                "payload": ["aps": ["content-available": 1]],
            ]
            message["android"] = ["priority": "high"]
        }
        return .object(message)
    }
}
