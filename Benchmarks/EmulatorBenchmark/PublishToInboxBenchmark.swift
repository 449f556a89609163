import CloudFunctions
import FirebaseEmulator
import Foundation
import FunctionsBuiltins
import Logging
import Synchronization

/// Publish → every inbox: the built-in pushConfig deployed in process, `devices` devices (1,000
/// unless `INBOX_DEVICES` says otherwise) subscribed to `PUSH_RC`, each listening on its inbox
/// as a connected device does. Each of `publishes` template publishes is timed from the call
/// to publish (so the commit is included) to the moment each device's listener receives the
/// STALE message; prints p50, p99 and the slowest over every device of every publish, in memory
/// and on disk.
enum PublishToInboxBenchmark {
    static let publishes = 20

    static func run() async throws {
        let devices = ProcessInfo.processInfo.environment["INBOX_DEVICES"].flatMap(Int.init) ?? 1_000
        print("\(devices) devices subscribed to PUSH_RC, \(publishes) publishes; ms from publish to each inbox")
        print("store      p50 ms   p99 ms   max ms   deliveries")
        for onDisk in [false, true] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("inbox-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            var quiet = Logger(label: "emulator")
            quiet.logLevel = .warning
            let emulator = try Emulator(project: "bench", directory: onDisk ? directory : nil, logger: quiet)
            async let running: Void = emulator.run()
            var functions = FunctionRegistry()
            functions.use(PushConfig(topic: "PUSH_RC"))
            try await emulator.deploy(functions)
            let tokens = try await emulator.messaging.registerDevices(count: devices)
            for start in stride(from: 0, to: tokens.count, by: 1000) {
                _ = try await emulator.messaging.subscribe(tokens: Array(tokens[start..<min(tokens.count, start + 1000)]), to: "PUSH_RC")
            }
            var etag = try emulator.remoteConfig.template().etag
            var latencies: [Double] = []
            for index in 0..<publishes {
                let arrivals = try await withThrowingTaskGroup(of: ContinuousClock.Instant.self) { group in
                    let listening = Listening(count: tokens.count)
                    for token in tokens {
                        let updates = emulator.messaging.inboxUpdates(token: token)
                        group.addTask {
                            listening.arrived()
                            for await message in updates where message.data["CONFIG_STATE"] == "STALE" {
                                return ContinuousClock.now
                            }
                            throw CancellationError()
                        }
                    }
                    await listening.waitForAll()
                    let start = ContinuousClock.now
                    etag = try await emulator.remoteConfig.publish(template(revision: index), ifMatch: etag).etag
                    return try await group.reduce(into: []) { $0.append(($1 - start).secondsValue * 1000) }
                }
                latencies += arrivals
            }
            await emulator.shutdown()
            await running
            latencies.sort()
            func at(_ p: Double) -> String { String(format: "%.1f", latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) }
            print([
                (onDisk ? "disk" : "memory").padding(toLength: 8, withPad: " ", startingAt: 0),
                at(0.5).leftPad(9), at(0.99).leftPad(9), String(format: "%.1f", latencies.last ?? 0).leftPad(9),
                String(latencies.count).leftPad(13),
            ].joined())
        }
    }

    static func template(revision: Int) -> RemoteConfigTemplate {
        RemoteConfigTemplate(
            parameters: ["welcome": RemoteConfigParameter(defaultValue: .value("revision \(revision)"), valueType: .string)],
            version: TemplateVersion(versionNumber: 0, description: "revision \(revision)"))
    }

    /// Counts the listeners that have started, so that the publish comes after all of them.
    final class Listening: Sendable {
        private let state: Mutex<(count: Int, waiter: CheckedContinuation<Void, Never>?)>
        init(count: Int) { state = Mutex((count, nil)) }
        func arrived() {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.count -= 1
                guard state.count == 0 else { return nil }
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
        func waitForAll() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if state.count == 0 { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }
}
