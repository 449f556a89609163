import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird
import FunctionsBus

/// Dead letters of the deployed functions under `/emulator/v1/projects/{project}`: the events a
/// function gave up on (failed without retry, retries exhausted, too old), and their replay.
struct EmulatorDeadLetterRoutes {
    let server: EmulatorServer

    func add(to router: Router<EmulatorRequestContext>) {
        let (group, owner) = server.emulatorProjectRoutes(of: router)
        // `{"deadLetters": [...]}`, oldest first; empty when nothing is deployed.
        group.get("deadLetters") { _, _ in
            let letters = server.emulator.bus?.deadLetters ?? []
            return Response.json(["deadLetters": .array(letters.map(Self.letterJSON))])
        }
        // `{"id": "<dead letter id>"}`: queues the event again for its function, with fresh attempts.
        owner.post("deadLetters:replay") { request, _ in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            guard let id = body["id"]?.stringValue, !id.isEmpty else {
                throw ServiceError(.invalidArgument, "The body must be {\"id\": \"<dead letter id>\"}.")
            }
            guard try await server.emulator.dispatcher.replayDeadLetter(id: id) else {
                throw ServiceError(.notFound, "No dead letter with id '\(id)' (it may have been replayed already).")
            }
            return Response.json(["id": .string(id), "replayed": true])
        }
    }

    /// A dead letter: its id, the function, the event's id, type, source and subject, the attempts,
    /// why it was given up on, the last error and when.
    static func letterJSON(_ letter: DeadLetter) -> JSONValue {
        [
            "id": .string(letter.id),
            "function": .string(letter.function),
            "eventId": .string(letter.event.id),
            "type": .string(letter.event.type),
            "source": .string(letter.event.source),
            "subject": letter.event.subject.map(JSONValue.string) ?? .null,
            "attempts": .number(Double(letter.attempts)),
            "reason": .string(letter.reason.rawValue),
            "lastError": letter.lastError.map(JSONValue.string) ?? .null,
            "time": .string(RFC3339Timestamp.string(from: letter.time)),
        ]
    }
}
