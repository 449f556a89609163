import CloudEvents
import Foundation

/// Converts legacy (1st gen) background events into CloudEvents, following the Functions
/// Frameworks' conversion tables, so fixtures and payloads from either generation can drive
/// the same functions.
///
/// Accepts `{"context": {...}, "data": ...}` and the older flat form, where everything but
/// `data` is context and `resource` may be a plain string.
public enum LegacyEvent {
    /// Legacy event types and their CloudEvent types.
    public static let typeMapping: [String: String] = [
        "google.firebase.remoteconfig.update": FirebaseEventType.remoteConfigUpdated,
        "providers/firebase.auth/eventTypes/user.create": FirebaseEventType.authUserCreated,
        "providers/firebase.auth/eventTypes/user.delete": FirebaseEventType.authUserDeleted,
        "google.firebase.auth.user.create": FirebaseEventType.authUserCreated,
        "google.firebase.auth.user.delete": FirebaseEventType.authUserDeleted,
        "providers/google.firebase.database/eventTypes/ref.write": FirebaseEventType.databaseWritten,
        "providers/google.firebase.database/eventTypes/ref.create": FirebaseEventType.databaseCreated,
        "providers/google.firebase.database/eventTypes/ref.update": FirebaseEventType.databaseUpdated,
        "providers/google.firebase.database/eventTypes/ref.delete": FirebaseEventType.databaseDeleted,
        "google.firebase.database.ref.write": FirebaseEventType.databaseWritten,
        "google.firebase.database.ref.create": FirebaseEventType.databaseCreated,
        "google.firebase.database.ref.update": FirebaseEventType.databaseUpdated,
        "google.firebase.database.ref.delete": FirebaseEventType.databaseDeleted,
        "providers/google.firebase.analytics/eventTypes/event.log": FirebaseEventType.analyticsLogged,
        "google.analytics.event.log": FirebaseEventType.analyticsLogged,
        "google.pubsub.topic.publish": FirebaseEventType.pubSubPublished,
    ]

    /// Converts a legacy event body.
    ///
    /// - Throws: ``EventPayloadError`` when the body is not a legacy event or its type is unknown.
    public static func cloudEvent(from body: Data) throws -> CloudEvent {
        guard case .object(let root) = try? JSONValue(parsing: body) else {
            throw EventPayloadError(eventType: "legacy", reason: "the body is not a JSON object")
        }
        var context = root["context"]?.objectValue ?? root.filter { $0.key != "data" }
        var data = root["data"] ?? .null
        guard let legacyType = context["eventType"]?.stringValue, let id = context["eventId"]?.stringValue else {
            throw EventPayloadError(eventType: "legacy", reason: "eventType and eventId are required")
        }
        guard let type = typeMapping[legacyType] else {
            throw EventPayloadError(eventType: legacyType, reason: "no CloudEvent type is known for it")
        }
        let resource = context["resource"]?.stringValue ?? context["resource"]?["name"]?.stringValue ?? ""
        let time = context["timestamp"]?.stringValue.flatMap { RFC3339Timestamp.date(from: $0) }
        var event = CloudEvent(id: id, source: "", type: type, time: time, dataContentType: "application/json")
        switch type {
        case FirebaseEventType.remoteConfigUpdated:
            event.source = "//firebaseremoteconfig.googleapis.com/" + resource
        case FirebaseEventType.authUserCreated, FirebaseEventType.authUserDeleted:
            event.source = "//firebaseauth.googleapis.com/" + resource
            event.subject = data["uid"]?.stringValue.map { "users/" + $0 }
            data = renameAuthMetadata(data)
        case FirebaseEventType.analyticsLogged:
            let parts = resource.split(separator: "/").map(String.init)
            let appId = data["userDim"]?["appInfo"]?["appId"]?.stringValue ?? ""
            event.source =
                parts.count >= 2 ? "//firebaseanalytics.googleapis.com/projects/\(parts[1])/apps/\(appId)" : ""
            event.subject = parts.count >= 4 ? "events/\(parts[3])" : nil
        case FirebaseEventType.pubSubPublished:
            event.source = "//pubsub.googleapis.com/" + resource
        default:
            try convertDatabase(&event, resource: resource, context: &context)
        }
        event.data = data.serializedData()
        return event
    }

    private static func convertDatabase(
        _ event: inout CloudEvent,
        resource: String,
        context: inout [String: JSONValue]
    ) throws {
        // projects/_/instances/{instance}/refs/{path}
        let parts = resource.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 5, parts[2] == "instances", parts[4] == "refs" else {
            throw EventPayloadError(eventType: event.type, reason: "resource '\(resource)' is not a database path")
        }
        let instance = parts[3]
        let ref = parts.dropFirst(5).joined(separator: "/")
        let domain = context["domain"]?.stringValue ?? "firebaseio.com"
        let location = domain == "firebaseio.com" ? "us-central1" : String(domain.split(separator: ".").first ?? "")
        event.source = FirebaseEventType.databaseSource(location: location, instance: instance)
        event.subject = "refs/" + ref
        event.extensions = [
            "instance": .string(instance), "ref": .string(ref), "firebasedatabasehost": .string(domain),
            "location": .string(location),
        ]
        switch context["auth"] {
        case .object(let auth) where auth["admin"]?.boolValue == true:
            event.extensions["authtype"] = "admin"
        case .object(let auth) where auth["variable"] != nil:
            event.extensions["authtype"] = "app_user"
            if let uid = auth["variable"]?["uid"]?.stringValue { event.extensions["authid"] = .string(uid) }
        default:
            event.extensions["authtype"] = "unauthenticated"
        }
    }

    /// Legacy auth payloads say `createdAt`/`lastSignedInAt`; CloudEvents say `createTime`/`lastSignInTime`.
    private static func renameAuthMetadata(_ data: JSONValue) -> JSONValue {
        guard case .object(var user) = data, case .object(var metadata)? = user["metadata"] else { return data }
        if let created = metadata.removeValue(forKey: "createdAt") { metadata["createTime"] = created }
        if let signedIn = metadata.removeValue(forKey: "lastSignedInAt") { metadata["lastSignInTime"] = signedIn }
        user["metadata"] = .object(metadata)
        return .object(user)
    }
}
