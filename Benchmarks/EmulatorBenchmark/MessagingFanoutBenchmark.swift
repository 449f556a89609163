import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation

/// Topic fan-out: register and subscribe N devices to one topic (N from `FANOUT_SUBSCRIBERS`,
/// 1,000,000 by default), send one message to it, and read one device's inbox; in memory and
/// on disk.
enum MessagingFanoutBenchmark {
    static func run() async throws {
        let subscribers = ProcessInfo.processInfo.environment["FANOUT_SUBSCRIBERS"].flatMap(Int.init) ?? 1_000_000
        try await run(subscribers: subscribers)
    }

    static func run(subscribers: Int) async throws {
        print("\(subscribers) subscribers of one topic")
        print("store      register/s   subscribe/s   send ms   recipients   inbox read ms")
        for onDisk in [false, true] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fanout-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let service = try Emulator(project: "bench", directory: onDisk ? directory : nil).messaging
            var clock = ContinuousClock().now
            var tokens: [String] = []
            tokens.reserveCapacity(subscribers)
            while tokens.count < subscribers {
                await tokens += try service.registerDevices(count: min(10_000, subscribers - tokens.count))
            }
            let register = ContinuousClock().now - clock
            clock = ContinuousClock().now
            var start = 0
            while start < tokens.count {
                let end = min(tokens.count, start + 1000)
                _ = try await service.subscribe(tokens: Array(tokens[start..<end]), to: "PUSH_RC")
                start = end
            }
            let subscribe = ContinuousClock().now - clock
            clock = ContinuousClock().now
            let result = try await service.send(Message(.topic("PUSH_RC"), data: ["CONFIG_STATE": "STALE"]))
            let send = ContinuousClock().now - clock
            clock = ContinuousClock().now
            let inbox = try service.inbox(token: tokens[subscribers / 2])
            let read = ContinuousClock().now - clock
            precondition(inbox.count == 1 && result.recipients == subscribers)
            print(
                [
                    (onDisk ? "disk" : "memory").padding(toLength: 8, withPad: " ", startingAt: 0),
                    rate(subscribers, register).leftPad(12), rate(subscribers, subscribe).leftPad(14),
                    millis(send).leftPad(10), String(result.recipients).leftPad(13), millis(read).leftPad(16),
                ].joined()
            )
        }
    }
}

func rate(_ count: Int, _ duration: Duration) -> String {
    String(Int(Double(count) / duration.secondsValue))
}

func millis(_ duration: Duration) -> String {
    String(format: "%.1f", duration.secondsValue * 1000)
}

extension Duration {
    var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

extension String {
    func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
