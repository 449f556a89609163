import CloudEvents
import Foundation

extension CloudEvent {
    /// How many function-made database writes led to this event (the `chaindepth` extension the
    /// emulator sets; 0 when absent). A write made while handling it is one step deeper, which
    /// is how runaway trigger loops are stopped.
    public var chainDepth: Int {
        get { extensions["chaindepth"].flatMap { Int($0.canonicalString) } ?? 0 }
        set { extensions["chaindepth"] = newValue > 0 ? .integer(newValue) : nil }
    }

    /// The event Remote Config emits when a template version is published or rolled back.
    ///
    /// `updateUser` always carries `name`, `email` and `imageUrl` (empty when unknown), and the
    /// data always has `description` (empty), `updateOrigin` and `updateType` (`*_UNSPECIFIED`),
    /// since the Python SDK reads them all without checking they are there.
    public static func remoteConfigUpdated(
        _ version: TemplateVersion,
        project: String,
        id: String = CloudEvent.randomID(),
        time: Date = Date()
    ) -> CloudEvent {
        var version = version
        version.updateUser = (version.updateUser ?? RemoteConfigUser(email: "")).completed
        var data = (try? JSONValue(encoding: version))?.objectValue ?? [:]
        data["description"] = data["description"] ?? ""
        data["updateOrigin"] = data["updateOrigin"] ?? .string(TemplateVersion.UpdateOrigin.unspecified.rawValue)
        data["updateType"] = data["updateType"] ?? .string(TemplateVersion.UpdateType.unspecified.rawValue)
        return CloudEvent(
            id: id,
            source: FirebaseEventType.remoteConfigSource(project: project),
            type: FirebaseEventType.remoteConfigUpdated,
            time: time,
            dataContentType: "application/json",
            data: JSONValue.object(data).serializedData()
        )
    }

    /// The event the Realtime Database emits for a write at a trigger's path.
    ///
    /// - Parameters:
    ///   - type: one of the `FirebaseEventType.database*` types.
    ///   - ref: the path the event is reported at (the trigger's path with its wildcards filled in).
    ///   - before: the data at `ref` before the write.
    ///   - delta: what the write changed below `ref` (see `Change.delta(from:to:)`).
    ///   - authType: `admin`, `app_user`, `unauthenticated` or `unknown`.
    public static func databaseWrite(
        type: String,
        instance: String,
        ref: String,
        before: JSONValue,
        delta: JSONValue,
        location: String = "us-central1",
        host: String = "firebaseio.com",
        authType: String = "admin",
        authId: String? = nil,
        id: String = CloudEvent.randomID(),
        time: Date = Date()
    ) -> CloudEvent {
        let path = DataSnapshot.trim(ref)
        var extensions: [String: CloudEventAttributeValue] = [
            "instance": .string(instance),
            "ref": .string(path),
            "firebasedatabasehost": .string(host),
            "location": .string(location),
            "authtype": .string(authType),
        ]
        if let authId { extensions["authid"] = .string(authId) }
        let payload: JSONValue = ["data": before, "delta": delta]
        return CloudEvent(
            id: id,
            source: FirebaseEventType.databaseSource(location: location, instance: instance),
            type: type,
            time: time,
            subject: "refs/" + path,
            dataContentType: "application/json",
            extensions: extensions,
            data: payload.serializedData()
        )
    }

    /// The event Authentication emits when a user is created or deleted.
    ///
    /// - Parameter type: `FirebaseEventType.authUserCreated` or `authUserDeleted`.
    public static func authUser(
        _ type: String,
        user: UserRecord,
        project: String,
        id: String = CloudEvent.randomID(),
        time: Date = Date()
    ) -> CloudEvent {
        CloudEvent(
            id: id,
            source: FirebaseEventType.authSource(project: project),
            type: type,
            time: time,
            subject: "users/\(user.uid)",
            dataContentType: "application/json",
            data: try? JSONEncoder().encode(user)
        )
    }

    /// The event Analytics emits for one logged event.
    ///
    /// The source names the app (`user.appInfo.appId`), the subject the event (`events/{name}`); the data is the
    /// `{eventDim, userDim}` wire ``AnalyticsLogEvent`` reads.
    public static func analyticsLogged(
        _ event: AnalyticsLogEvent,
        project: String,
        id: String = CloudEvent.randomID(),
        time: Date = Date()
    ) -> CloudEvent {
        CloudEvent(
            id: id,
            source: FirebaseEventType.analyticsSource(project: project, appId: event.user?.appInfo.appId ?? ""),
            type: FirebaseEventType.analyticsLogged,
            time: time,
            subject: "events/\(event.name)",
            dataContentType: "application/json",
            data: try? JSONEncoder().encode(event)
        )
    }

    /// The event Eventarc sends for a Pub/Sub message: its id is the message's id (a
    /// redelivery is the same event), its source names the topic, its time is the publish
    /// time, and its data ``MessagePublishedData``.
    public static func pubSubMessagePublished(
        _ message: PubSubMessage,
        project: String,
        topic: String,
        subscription: String? = nil
    ) -> CloudEvent {
        let data = MessagePublishedData(
            message: message, subscription: subscription ?? "projects/\(project)/subscriptions/\(topic)")
        return CloudEvent(
            id: message.messageId,
            source: PubSub.source(project: project, topic: topic),
            type: FirebaseEventType.pubSubPublished,
            time: message.publishTime,
            dataContentType: "application/json",
            data: try? JSONEncoder().encode(data)
        )
    }
}
