// The STALE ping loop, in process: the emulated services, the outbox, the event bus and the
// functions, with simulated devices.
//
//   swift run stale-loop [devices]
//
// 1. Deploys pushConfig (topic PUSH_RC) and a leaderboard function.
// 2. Registers devices; most subscribe to PUSH_RC, two to another topic.
// 3. Publishes a Remote Config template, publishes a change, then rolls back. After each,
//    pushConfig sends {"CONFIG_STATE": "STALE"} and each device's next fetch gets the new
//    version (the device side is a plain fetch here; the full client model is issue #5).
import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import FunctionsBuiltins
import Logging

let deviceCount = max(1, CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 4)
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .warning
    return handler
}

func step(_ text: String) { print("\n▸ " + text) }
func short(_ token: String) -> String { String(token.prefix(12)) + "…" }

let emulator = try Emulator(project: "demo-project", directory: nil)
// Deployed functions run while the emulator does: it runs beside this script until the end.
async let running: Void = emulator.run()
var functions = FunctionRegistry()
functions.use(PushConfig(topic: "PUSH_RC"))
functions["onScoreWrite"] = Database.ref("/scores/{scoreId}").options(.concurrency(1)).onWrite { change, context in
    guard let player = change.after.child("player").val().stringValue,
        let points = change.after.child("points").val().numberValue
    else { return }
    let best = context.database.ref("leaderboard/\(player)")
    if (try await best.get().val().numberValue ?? -.infinity) < points {
        try await best.set(.number(points))
    }
}
try await emulator.deploy(functions)
step("emulator started in memory for project demo-project; deployed: \(functions.names.joined(separator: ", "))")

let subscribed = try await emulator.messaging.registerDevices(count: deviceCount, platform: "ios")
let others = try await emulator.messaging.registerDevices(count: 2, platform: "android")
_ = try await emulator.messaging.subscribe(tokens: subscribed, to: "PUSH_RC")
_ = try await emulator.messaging.subscribe(tokens: others, to: "NEWS")
step("registered \(deviceCount) devices subscribed to PUSH_RC and 2 subscribed to NEWS")

/// A simulated app install: drains its inbox, sets a stale flag on a CONFIG_STATE ping, and on
/// its next launch fetches (bypassing its cache) only when stale.
struct Device {
    let token: String
    let platform: String
    var messagesSeen = 0
    var stale = false
    var cachedVersion: String?

    var instance: RemoteConfigAppInstance {
        RemoteConfigAppInstance(installationID: String(token.prefix(22)), appID: "1:123:\(platform):abc",
            appVersion: "2.1.0", platform: platform, languageCode: "en-US", countryCode: "US")
    }
}

var devices =
    subscribed.map { Device(token: $0, platform: "ios") } + others.map { Device(token: $0, platform: "android") }

@MainActor
func showLoop(after description: String) async throws {
    await emulator.waitUntilIdle()
    step("\(description): template version \(emulator.remoteConfig.latestVersion())")
    var pinged = 0
    for index in devices.indices {
        let inbox = try emulator.messaging.inbox(token: devices[index].token)
        let new = inbox.dropFirst(devices[index].messagesSeen)
        devices[index].messagesSeen = inbox.count
        if new.contains(where: { $0.data["CONFIG_STATE"] == "STALE" }) {
            devices[index].stale = true
            pinged += 1
        }
        let topic = subscribed.contains(devices[index].token) ? "PUSH_RC" : "NEWS   "
        if devices[index].stale {
            let fetched = try emulator.remoteConfig.fetch(instance: devices[index].instance, ifNoneMatch: nil)
            devices[index].cachedVersion = fetched.templateVersion
            devices[index].stale = false
            let entries = fetched.entries.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            print("  \(short(devices[index].token)) \(topic)  got STALE → next launch fetches "
                + "v\(fetched.templateVersion): " + entries.joined(separator: ", "))
        } else {
            print("  \(short(devices[index].token)) \(topic)  no ping → keeps its cached config ("
                + (devices[index].cachedVersion.map { "v" + $0 } ?? "the in-app defaults") + ")")
        }
    }
    print("  pushConfig's STALE ping reached \(pinged) of \(devices.count) devices")
}

let v1 = try RemoteConfigTemplate.decode(from: Data(#"""
    {"conditions": [{"name": "ios", "expression": "device.os == 'ios'"}],
     "parameters": {"welcome": {"defaultValue": {"value": "Hello"},
                                "conditionalValues": {"ios": {"value": "Hello, iPhone"}}},
                    "button_color": {"defaultValue": {"value": "blue"}}},
     "version": {"description": "first template"}}
    """#.utf8))
let first = try await emulator.remoteConfig.publish(v1, ifMatch: "*")
try await showLoop(after: "published the first template (If-Match: *)")

var v2 = v1
v2.parameters["button_color"] = try RemoteConfigTemplate.decode(
    from: Data(#"{"parameters": {"c": {"defaultValue": {"value": "green"}}}}"#.utf8)
).parameters["c"]
_ = try await emulator.remoteConfig.publish(v2, ifMatch: emulator.remoteConfig.template().etag)
try await showLoop(after: "published a change: button_color = green")

_ = try await emulator.remoteConfig.rollback(to: first.template.versionNumber)
try await showLoop(after: "rolled back to version \(first.template.versionNumber)")

let db = emulator.defaultDatabaseInstance
for (id, player, points) in [("s1", "ann", 10), ("s2", "bob", 7), ("s3", "ann", 12), ("s4", "bob", 3)] {
    try await emulator.database.set(namespace: db, path: "scores/\(id)",
        value: ["player": .string(player), "points": .number(Double(points))])
}
await emulator.waitUntilIdle()
step("wrote 4 scores; onScoreWrite keeps /leaderboard = "
    + (try emulator.database.get(namespace: db, path: "leaderboard", queryParameters: [:])).serialized(sortedKeys: true))

let log = try emulator.store.eventLog()
step("event log: \(log.count) events, every one delivered: \(log.allSatisfy { $0.done })")
for entry in log {
    let deliveries = entry.deliveries.map { "\($0.function) \($0.status) after \($0.attempts)" }
    print("  \(entry.entry.event.type)  \(entry.entry.event.subject ?? "")  → \(deliveries.joined(separator: ", "))")
}

await emulator.shutdown()
await running
