import ArgumentParser
import CloudFunctions
import Foundation

/// `functions events:log`: the emulator's events, each with its deliveries.
struct EventsLog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events:log",
        abstract: "Print the event log: each event with every function's delivery, attempts and last error."
    )

    @OptionGroup var target: EmulatorOptions

    @Option(help: "Show only the newest N events.")
    var limit = 50

    @Option(help: "Show only events delivered to this function.")
    var function: String?

    @Flag(help: "First wait until every queued delivery has finished (retries due later excepted).")
    var wait = false

    @Flag(help: "Print the emulator's JSON answer.")
    var json = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be positive") }
    }

    func run() async throws {
        let api = try target.client()
        let answer = try await api.send("GET", api.emulatorPath("/events"),
            query: wait ? [URLQueryItem(name: "wait", value: "true")] : [], timeout: 600).json()
        var events = answer["events"]?.arrayValue ?? []
        if let function {
            events = events.filter { event in
                (event["deliveries"]?.arrayValue ?? []).contains { $0["function"]?.stringValue == function }
            }
        }
        events = Array(events.suffix(limit))
        if json { return printJSON(.object(["events": .array(events)])) }
        if events.isEmpty { print("no events") }
        for event in events {
            let subject = event["subject"]?.stringValue.map { " \($0)" } ?? ""
            print("\(event["time"]?.stringValue ?? "?")  \(event["type"]?.stringValue ?? "?")\(subject)  "
                + "id \(event["id"]?.stringValue ?? "?")")
            let deliveries = event["deliveries"]?.arrayValue ?? []
            if deliveries.isEmpty { print("    (no function matched)") }
            for delivery in deliveries {
                let attempts = delivery["attempts"]?.numberValue.flatMap { Int(exactly: $0) } ?? 0
                let error = delivery["lastError"]?.stringValue.map { ": \($0)" } ?? ""
                print("    \(delivery["function"]?.stringValue ?? "?")  \(delivery["status"]?.stringValue ?? "?")"
                    + " after \(attempts) attempt\(attempts == 1 ? "" : "s")\(error)")
            }
        }
    }
}
