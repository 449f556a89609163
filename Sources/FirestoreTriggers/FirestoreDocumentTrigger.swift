import CloudEvents
import CloudFunctions
import Foundation
import SwiftProtobuf

/// A Firestore document path to trigger on; finish with ``onWrite(_:)`` and its siblings.
///
/// Each write of a matching document fires the trigger once, with the document before and
/// after; `{name}` segments become `context.params`. The event data is the protobuf
/// `DocumentEventData` Eventarc sends (`application/protobuf`), or its JSON form.
public struct FirestoreDocumentTrigger: Sendable {
    let database: String
    let path: String
    var functionOptions: FunctionOptions

    /// The event types, as Eventarc names them.
    public enum EventType {
        public static let written = "google.cloud.firestore.document.v1.written"
        public static let created = "google.cloud.firestore.document.v1.created"
        public static let updated = "google.cloud.firestore.document.v1.updated"
        public static let deleted = "google.cloud.firestore.document.v1.deleted"
    }

    /// The same trigger with delivery options changed.
    public func options(_ changes: FunctionOption...) -> FirestoreDocumentTrigger {
        FirestoreDocumentTrigger(database: database, path: path, functionOptions: functionOptions.with(changes))
    }

    /// Runs on every create, update and delete of a matching document.
    public func onWrite(
        _ handler: @escaping @Sendable (Change<DocumentSnapshot>, EventContext) async throws -> Void
    ) -> CloudFunction {
        function(EventType.written) { event, context in
            try await handler(try Self.change(from: event), context)
        }
    }

    /// Runs when a matching document is created; receives it.
    public func onCreate(
        _ handler: @escaping @Sendable (DocumentSnapshot, EventContext) async throws -> Void
    ) -> CloudFunction {
        function(EventType.created) { event, context in
            try await handler(try Self.change(from: event).after, context)
        }
    }

    /// Runs when a matching document that exists is written again.
    public func onUpdate(
        _ handler: @escaping @Sendable (Change<DocumentSnapshot>, EventContext) async throws -> Void
    ) -> CloudFunction {
        function(EventType.updated) { event, context in
            try await handler(try Self.change(from: event), context)
        }
    }

    /// Runs when a matching document is deleted; receives it as it was.
    public func onDelete(
        _ handler: @escaping @Sendable (DocumentSnapshot, EventContext) async throws -> Void
    ) -> CloudFunction {
        function(EventType.deleted) { event, context in
            try await handler(try Self.change(from: event).before, context)
        }
    }

    private func function(
        _ eventType: String, handler: @escaping @Sendable (CloudEvent, EventContext) async throws -> Void
    ) -> CloudFunction {
        var problems: [String] = []
        var filters = ["database": database, "namespace": Firestore.defaultDatabase]
        var patterns: [String: PathPattern] = [:]
        do {
            let pattern = try PathPattern(path)
            // A path without wildcards is matched exactly, as Eventarc's `document` filter does.
            if pattern.hasWildcards { patterns["document"] = pattern } else { filters["document"] = pattern.text }
        } catch {
            problems.append(error.description)
        }
        return CloudFunction(
            trigger: EventTrigger(eventType: eventType, filters: filters, pathPatterns: patterns),
            options: functionOptions, problems: problems, handler: handler)
    }

    /// The document before and after the write an event describes.
    ///
    /// - Throws: ``EventPayloadError`` when the data is neither protobuf nor JSON
    ///   `DocumentEventData`.
    public static func change(from event: CloudEvent) throws -> Change<DocumentSnapshot> {
        let contentType = event.dataContentType ?? ""
        let payload: Google_Events_Cloud_Firestore_V1_DocumentEventData
        do {
            let data = event.data ?? Data()
            if contentType.hasPrefix("application/json") {
                payload = try Google_Events_Cloud_Firestore_V1_DocumentEventData(jsonUTF8Data: data)
            } else if contentType.hasPrefix("application/protobuf") || contentType.isEmpty {
                payload = try Google_Events_Cloud_Firestore_V1_DocumentEventData(serializedBytes: data)
            } else {
                throw EventPayloadError.refusing(event,
                    "the data is '\(contentType)', not application/protobuf or application/json")
            }
        } catch let error as EventPayloadError {
            throw error
        } catch {
            throw EventPayloadError.refusing(event, "not a DocumentEventData: \(error)")
        }
        let path = event[attribute: "document"]
            ?? event.subject.map { $0.hasPrefix("documents/") ? String($0.dropFirst("documents/".count)) : $0 }
            ?? ""
        return Change(
            before: payload.hasOldValue ? DocumentSnapshot(payload.oldValue, path: path) : .missing(path: path),
            after: payload.hasValue ? DocumentSnapshot(payload.value, path: path) : .missing(path: path)
        )
    }
}
