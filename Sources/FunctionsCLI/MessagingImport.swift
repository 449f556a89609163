import ArgumentParser
import CloudFunctions
import Foundation

/// `functions messaging:import FILE --from parse --application ID`: Parse installations as FCM
/// devices subscribed to topics named after their channels.
struct MessagingImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messaging:import",
        abstract: "Import Parse installations: iOS APNs tokens become FCM tokens, channels become topics.",
        discussion: """
            Each iOS installation's deviceToken is exchanged for an FCM registration token through \
            /iid/v1:batchImport (100 per call), then subscribed to a topic per Parse channel (the broadcast \
            channel "" becomes --broadcast-topic). Android installations are listed as skipped: their GCM tokens \
            need no exchange, their apps re-register with FCM. --output writes {objectId: registration token}.
            """
    )

    @OptionGroup var target: EmulatorOptions

    @OptionGroup var export: ParseExport

    @Option(help: "The iOS app's bundle id.")
    var application: String

    @Flag(help: "The APNs tokens are for the sandbox (development builds).")
    var sandbox = false

    @Option(name: .customLong("broadcast-topic"), help: "The topic for Parse's broadcast channel \"\".")
    var broadcastTopic = "all"

    @Option(name: .shortAndLong, help: "Write {objectId: FCM registration token} to this JSON file.")
    var output: String?

    func run() async throws {
        let api = try target.client()
        let json = try export.json()
        guard let installations = json["results"]?.arrayValue ?? json.arrayValue else {
            throw CLIError("\(export.file) is not a Parse _Installation export: expected {\"results\": [...]} or an array")
        }
        var ios: [(id: String, apns: String, channels: [String])] = []
        var skipped = 0
        for (index, installation) in installations.enumerated() {
            guard installation["deviceType"]?.stringValue == "ios", let apns = installation["deviceToken"]?.stringValue
            else {
                skipped += 1
                continue
            }
            let id = installation["objectId"]?.stringValue ?? "installation \(index)"
            let channels = (installation["channels"]?.arrayValue ?? []).compactMap(\.stringValue)
            ios.append((id, apns, channels))
        }
        var tokens: [String: String] = [:]
        var subscribers: [String: [String]] = [:]
        for start in stride(from: 0, to: ios.count, by: 100) {
            let batch = ios[start..<min(start + 100, ios.count)]
            let body: JSONValue = [
                "application": .string(application), "sandbox": .bool(sandbox),
                "apns_tokens": .array(batch.map { .string($0.apns) }),
            ]
            let results = try await api.send("POST", "/iid/v1:batchImport", json: body).json()["results"]?.arrayValue
                ?? []
            for (installation, result) in zip(batch, results) {
                guard let token = result["registration_token"]?.stringValue else { continue }
                tokens[installation.id] = token
                for channel in installation.channels {
                    subscribers[channel.isEmpty ? broadcastTopic : channel, default: []].append(token)
                }
            }
            status("exchanged \(start + batch.count) of \(ios.count) APNs tokens")
        }
        for (topic, members) in subscribers.sorted(by: { $0.key < $1.key }) {
            for start in stride(from: 0, to: members.count, by: 1000) {
                let slice = Array(members[start..<min(start + 1000, members.count)])
                let body: JSONValue = [
                    "to": .string("/topics/\(topic)"), "registration_tokens": .array(slice.map(JSONValue.string)),
                ]
                try await api.send("POST", "/iid/v1:batchAdd", json: body)
            }
        }
        if let output {
            do {
                try JSONValue.object(tokens.mapValues(JSONValue.string)).indented().write(
                    toFile: output, atomically: true, encoding: .utf8)
            } catch {
                throw CLIError("cannot write \(output): \(error.localizedDescription)")
            }
        }
        let topics = subscribers.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value.count))" }
        print("imported \(tokens.count) iOS installations; topics: "
            + (topics.isEmpty ? "none" : topics.joined(separator: ", "))
            + (skipped > 0 ? "; skipped \(skipped) without an iOS device token" : ""))
    }
}
