import ArgumentParser
import CloudFunctions
import Foundation
import FirebaseHTTP

/// `functions functions:log`: what the deployed functions' workers wrote, and with `--follow`
/// each new line as it is written.
struct FunctionsLog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "functions:log",
        abstract: "Print the deployed functions' log lines (the newest, oldest first); --follow keeps printing new ones."
    )

    @OptionGroup var target: EmulatorOptions

    @Option(help: "Show only this function's lines.")
    var only: String?

    @Option(help: "Show only lines of this severity and above (DEBUG, INFO, NOTICE, WARNING, ERROR, CRITICAL, …).")
    var severity = "DEFAULT"

    @Option(help: "How many of the newest lines to print first.")
    var limit = 50

    @Flag(help: "Keep printing lines as the functions write them, until interrupted.")
    var follow = false

    @Flag(help: "Print each line as the emulator's JSON entry.")
    var json = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be positive") }
    }

    func run() async throws {
        let api = try target.client()
        var query = [URLQueryItem(name: "limit", value: String(limit)), URLQueryItem(name: "severity", value: severity)]
        if let only { query.append(URLQueryItem(name: "function", value: only)) }
        guard follow else {
            let answer = try await api.send("GET", api.emulatorPath("/logs"), query: query).json()
            let entries = answer["entries"]?.arrayValue ?? []
            if entries.isEmpty, !json { status("no log lines" + (only.map { " from \($0)" } ?? "")) }
            for entry in entries { print(line(entry)) }
            return
        }
        // The same route as a stream: the newest lines first, then each new one.
        let response = try await api.openStream(api.emulatorPath("/logs"), query: query)
        try await response.forEachEvent { event, data in
            guard event == "log", let entry = try? JSONValue(parsing: data) else { return }
            // Followed until interrupted, or until nothing reads the output any more (`| head`).
            do { try FileHandle.standardOutput.write(contentsOf: Data((line(entry) + "\n").utf8)) } catch { throw ExitCode.success }
        }
        throw CLIError("the emulator closed the log stream")
    }

    /// `TIME SEVERITY FUNCTION [event ID]: MESSAGE key=value…`, or the entry's JSON.
    func line(_ entry: JSONValue) -> String {
        if json { return entry.serialized() }
        let event = entry["eventId"]?.stringValue.map { " [event \($0)]" } ?? ""
        let labels = (entry["labels"]?.objectValue ?? [:]).sorted { $0.key < $1.key }
            .map { " \($0.key)=\($0.value.stringValue ?? $0.value.serialized())" }.joined()
        return "\(entry["time"]?.stringValue ?? "?") \(entry["severity"]?.stringValue ?? "DEFAULT") "
            + "\(entry["function"]?.stringValue ?? "?")\(event): \(entry["message"]?.stringValue ?? "")\(labels)"
    }
}
