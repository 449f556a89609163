import ArgumentParser
import CloudFunctions
import Foundation

/// `functions trigger NAME`: sends one event straight to a deployed function and reports how
/// that attempt went (no retries).
struct Trigger: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger",
        abstract: "Fire a stored or hand-written event at a deployed function.",
        discussion: """
            --event-id resends an event of the event log (see events:log). Otherwise the event is written by hand: \
            --data (the CloudEvent's data), with --type (default: the function's event type), --subject and \
            --source; or --event FILE for a whole CloudEvent in JSON. \
            Example: functions trigger onScoreWrite --subject refs/scores/s1 \
            --data '{"delta": {"player": "ada", "score": 7}}'
            """
    )

    @OptionGroup var target: EmulatorOptions

    @Argument(help: "The function.")
    var function: String

    @Option(name: .customLong("event-id"), help: "The id of a stored event to send again.")
    var eventId: String?

    @Option(help: "The event's data as JSON.")
    var data: String?

    @Option(help: "A whole CloudEvent (structured JSON) from this file ('-' = stdin).")
    var event: String?

    @Option(help: "The event type.")
    var type: String?

    @Option(help: "The event subject, e.g. refs/scores/s1 for a database trigger.")
    var subject: String?

    @Option(help: "The event source.")
    var source: String?

    func validate() throws {
        let ways = [eventId != nil, event != nil, data != nil || type != nil || subject != nil || source != nil]
        guard ways.filter({ $0 }).count == 1 else {
            throw ValidationError("give --event-id, --event FILE, or the event's --data/--type/--subject/--source")
        }
    }

    func run() async throws {
        let api = try target.client()
        let body: JSONValue
        if let eventId {
            body = ["eventId": .string(eventId)]
        } else if let event {
            body = ["event": try readJSONFile(event)]
        } else {
            var attributes: [String: JSONValue] = [:]
            if let data {
                do {
                    attributes["data"] = try JSONValue(parsing: Data(data.utf8))
                } catch {
                    throw CLIError("--data is not JSON: \(error)")
                }
            }
            attributes["type"] = type.map(JSONValue.string)
            attributes["subject"] = subject.map(JSONValue.string)
            attributes["source"] = source.map(JSONValue.string)
            body = ["event": .object(attributes.compactMapValues { $0 })]
        }
        let answer = try await api.send("POST", api.emulatorPath("/functions/\(function):trigger"), json: body,
            timeout: 600).json()
        let outcome = "\(function) \(answer["status"]?.stringValue ?? "?") on event "
            + "\(answer["eventId"]?.stringValue ?? "?") (\(answer["type"]?.stringValue ?? "?"))"
        guard answer["status"]?.stringValue == "succeeded" else {
            throw CLIError(outcome + ": " + ((answer["error"] ?? answer["reason"])?.stringValue ?? "no error given"))
        }
        print(outcome)
    }
}
