import CloudEvents
import CloudFunctions
import FirebaseEmulator
import FirebaseHTTP
import FirestoreTriggers
import Foundation
import ProcessSupport

/// The Firestore emulator's trigger events, as this emulator takes them.
///
/// One catch-all trigger per database (`written` on `{path=**}`) is registered with the
/// Firestore emulator, which POSTs each write to `/functions/projects/{p}/triggers/{id}` one at
/// a time and never again. Each write becomes the `written` event and the event of its kind
/// (`created`, `updated` or `deleted`), as Eventarc gives each function its own event, and
/// only those a deployed function wants are committed.
enum FirestoreEvents {
    static let typePrefix = "google.cloud.firestore.document.v1."

    /// Registers the catch-all trigger of `database`. Registering it again replaces it.
    ///
    /// - Parameter paused: points the trigger at a path no document can have (Firestore refuses
    ///   ids of the form `__…__`) instead: no write fires it. The Firestore emulator has no
    ///   route that removes a trigger.
    static func register(database: String, project: String, at address: HostPort, paused: Bool = false) async throws {
        let id = "swift-cloud-functions-" + database.filter { $0.isLetter || $0.isNumber || $0 == "-" }
        // The id holds only letters, digits and '-': nothing to encode in the query.
        let url = URL(string: address.url(path: "/emulator/v1/projects/\(project)/eventarcTrigger").absoluteString
            + "?eventarcTriggerId=" + id)!
        let body: JSONValue = [
            "eventType": .string(FirestoreDocumentTrigger.EventType.written), "database": .string(database),
            "namespace": .string(Firestore.defaultDatabase),
            "document": paused
                ? ["value": "__swift_cloud_functions__/__paused__", "matchType": "EXACT"]
                : ["value": "{path=**}", "matchType": "PATH_PATTERN"],
        ]
        let answer = try await HTTPExchange.send("POST", url, headers: [("Content-Type", "application/json")],
            body: body.serializedData(), timeout: .seconds(10))
        guard (200..<300).contains(answer.status) else {
            throw GoogleEmulatorError("the Firestore emulator refused the trigger of database \(database): "
                + "HTTP \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
    }

    /// The events one POST of the Firestore emulator stands for: its `written` event, and the
    /// event of the write's kind. Its body (base64 text of the protobuf, although it says
    /// `application/protobuf`) becomes the bytes Eventarc sends, and its source loses the
    /// doubled `projects/`. A write that changed nothing (a delete of a missing document) is none.
    static func events(from posted: CloudEvent, project: String) throws -> [CloudEvent] {
        guard posted.type.hasPrefix(typePrefix) else {
            throw ServiceError(.invalidArgument, "'\(posted.type)' is not a Firestore document event")
        }
        var event = posted
        if let data = event.data, let decoded = Data(base64Encoded: data) { event.data = decoded }
        event.dataContentType = "application/protobuf"
        let database = event[attribute: "database"] ?? Firestore.defaultDatabase
        event.source = "//firestore.googleapis.com/projects/\(project)/databases/\(database)"
        event.type = FirestoreDocumentTrigger.EventType.written
        let change: Change<DocumentSnapshot>
        do {
            change = try FirestoreDocumentTrigger.change(from: event)
        } catch {
            throw ServiceError(.invalidArgument, "\(error)")
        }
        let kind: String
        switch (change.before.exists, change.after.exists) {
        case (false, true): kind = FirestoreDocumentTrigger.EventType.created
        case (true, true): kind = FirestoreDocumentTrigger.EventType.updated
        case (true, false): kind = FirestoreDocumentTrigger.EventType.deleted
        case (false, false): return []
        }
        var specific = event
        specific.type = kind
        specific.id = event.id + "-" + String(kind.dropFirst(typePrefix.count))
        return [event, specific]
    }
}
