import ArgumentParser
import CloudEvents
import CloudFunctions
import Foundation
import RemoteConfigClient

/// `functions demo:stale-loop`: the STALE loop against a running emulator with `pushConfig`
/// deployed, with simulated devices, step by step.
struct DemoStaleLoop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo:stale-loop",
        abstract: "Run the STALE loop with simulated devices against a running emulator with pushConfig deployed.",
        discussion: """
            Registers devices (most subscribed to the topic, a few not), launches each app once, publishes a \
            new Remote Config template, and shows pushConfig's ping marking the subscribed devices stale, their \
            next launch fetching the new version while the others keep their cached one, and the keys a \
            realtime listener saw change.
            """
    )

    @OptionGroup var target: EmulatorOptions

    @Option(help: "Devices subscribed to the topic.")
    var devices = 5

    @Option(help: "Devices not subscribed (they keep their cache).")
    var others = 2

    @Option(help: "The topic pushConfig sends to.")
    var topic = "PUSH_RC"

    func validate() throws {
        guard (1...1000).contains(devices), (0...1000).contains(others) else {
            throw ValidationError("--devices must be 1...1000 and --others 0...1000")
        }
    }

    func run() async throws {
        let api = try target.client()
        let deployed = try await api.send("GET", api.emulatorPath("/functions")).json()
        let pushers = (deployed["endpoints"]?.objectValue ?? [:]).filter {
            $0.value["eventTrigger"]?["eventType"]?.stringValue == FirebaseEventType.remoteConfigUpdated
        }.keys.sorted()
        guard !pushers.isEmpty else {
            throw CLIError("no Remote Config function is deployed to \(api.base.absoluteString): run ./deploy.sh first")
        }
        print("1. deployed Remote Config functions: \(pushers.joined(separator: ", "))")

        let makeClient: (Int) -> RemoteConfigClient = { _ in
            RemoteConfigClient(backend: api.base, project: api.project)
        }
        let subscribed = try await RemoteConfigDevice.register(count: devices, topic: topic, backend: api.base,
            project: api.project, makeClient: makeClient)
        let unsubscribed = try await RemoteConfigDevice.register(count: others, topic: nil, backend: api.base,
            project: api.project, makeClient: makeClient)
        let all = subscribed + unsubscribed
        for device in all where await device.launch() == .error {
            throw CLIError("a device could not fetch its config: \(device.client.lastFetchError.map { "\($0)" } ?? "")")
        }
        let before = all.first?.client.activeTemplateVersion ?? 0
        print("2. \(devices) devices on \(topic) and \(others) not: each app launched and activated version \(before)")

        let listener = subscribed[0].client
        let (updates, continuation) = AsyncStream.makeStream(of: Result<RemoteConfigUpdate, RemoteConfigError>.self)
        let registration = listener.addOnConfigUpdateListener { continuation.yield($0) }
        defer { registration.remove() }

        let version = try await publish(api)
        print("3. published template version \(version) (welcome_message changed)")
        _ = try await api.send("GET", api.emulatorPath("/events"), query: [URLQueryItem(name: "wait", value: "true")],
            timeout: 600)
        // Device 1's realtime listener fetches the new version as soon as it hears of it (which
        // clears a stale flag): wait for it first, so that it cannot race the push. A deadline
        // keeps a broken stream from hanging the demo.
        let heard = await withTaskGroup(of: Result<RemoteConfigUpdate, RemoteConfigError>?.self) { group in
            group.addTask {
                var iterator = updates.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        var pinged = 0
        for device in all { pinged += try await device.receivePushes() > 0 ? 1 : 0 }
        let stale = all.filter { $0.client.isStale }.count
        print("4. pushConfig's {\"CONFIG_STATE\": \"STALE\"} reached \(pinged) devices; "
            + "\(stale) marked their config stale")

        print("5. each app's next launch (its 12-hour fetch interval has not passed):")
        for (index, device) in all.enumerated() {
            let wasStale = device.client.isStale
            let status = await device.launch()
            let source = switch status {
            case .successFetchedFromRemote: "fetched from the emulator"
            case .successUsingPreFetchedData: "served from its cache"
            case .error: "could not fetch (\(device.client.lastFetchError.map { "\($0)" } ?? "unknown error"))"
            }
            print("   device \(index + 1)\(index < devices ? "" : " (not on \(topic))"): \(wasStale ? "stale, " : "")"
                + "\(source), active version \(device.client.activeTemplateVersion), "
                + "welcome_message = \"\(device.client["welcome_message"].stringValue)\"")
        }
        switch heard {
        case .success(let update)?:
            print("6. device 1's realtime listener saw version \(update.templateVersion) change: "
                + update.updatedKeys.sorted().joined(separator: ", "))
        case .failure(let error)?:
            print("6. device 1's realtime listener reported an error: \(error)")
        case nil:
            print("6. device 1's realtime listener heard nothing within 60 s")
        }
        continuation.finish()
    }

    /// Publishes the current template with a new welcome message, against its ETag.
    private func publish(_ api: EmulatorAPI) async throws -> String {
        let current = try await api.send("GET", api.projectPath("/remoteConfig"))
        guard case .object(var template) = try current.json() else { throw CLIError("the template is not an object") }
        template["version"] = nil
        var parameters = template["parameters"]?.objectValue ?? [:]
        let stamp = RFC3339Timestamp.string(from: Date())
        parameters["welcome_message"] = ["defaultValue": ["value": .string("Hello at \(stamp)")]]
        template["parameters"] = .object(parameters)
        let published = try await api.send("PUT", api.projectPath("/remoteConfig"), json: .object(template),
            headers: ["If-Match": current.headers["etag"] ?? "*"]).json()
        return published["version"]?["versionNumber"]?.stringValue ?? "?"
    }
}
