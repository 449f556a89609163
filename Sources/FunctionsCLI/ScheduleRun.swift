import ArgumentParser
import CloudEvents
import CloudFunctions
import Foundation

/// `functions schedule:run NAME`: fires a scheduled function once, now, as its schedule would,
/// and reports how that run went.
struct ScheduleRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule:run",
        abstract: "Run a scheduled function once, now.",
        discussion: """
            The function gets a firing whose schedule time is now, straight away and once (no retries), \
            while its schedule goes on as before. Example: functions schedule:run nightlyDigest
            """
    )

    @OptionGroup var target: EmulatorOptions

    @Argument(help: "The scheduled function.")
    var function: String

    func run() async throws {
        let api = try target.client()
        let listed = try await api.send("GET", api.emulatorPath("/functions")).json()
        guard let endpoint = listed["endpoints"]?[function] else {
            throw CLIError("no deployed function named '\(function)'")
        }
        guard let schedule = endpoint["scheduleTrigger"] else {
            throw CLIError("'\(function)' is not a scheduled function; `functions trigger \(function)` sends it an event")
        }
        let now = RFC3339Timestamp.string(from: Date())
        let answer = try await api.send("POST", api.emulatorPath("/functions/\(function):trigger"),
            json: ["event": ["time": .string(now)]], timeout: 1_900).json()
        let outcome = "\(function) (\(schedule["schedule"]?.stringValue ?? "?")) \(answer["status"]?.stringValue ?? "?") "
            + "for the firing at \(now)"
        guard answer["status"]?.stringValue == "succeeded" else {
            throw CLIError(outcome + ": " + ((answer["error"] ?? answer["reason"])?.stringValue ?? "no error given"))
        }
        print(outcome)
    }
}
