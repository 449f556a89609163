import CloudEvents
import Foundation
import Logging

/// What a handler knows about the invocation: the event, its parameters, the attempt, a
/// logger, and the Admin clients of the backend the function runs against.
public struct EventContext: Sendable {
    /// What the invocations of one function share: its name, trigger, Admin clients and
    /// logger. One reference to it is what a context copies of them, so the bus makes one per
    /// function rather than copying each at every delivery.
    package final class Invocations: Sendable {
        package let functionName: String
        /// Where ``EventContext/params`` come from when the context was not given them.
        let trigger: EventTrigger?
        let admin: AdminClients
        let logger: Logger
        let paramValues: ParamValues

        package init(
            functionName: String, trigger: EventTrigger?, admin: AdminClients, logger: Logger,
            paramValues: ParamValues = ParamValues()
        ) {
            self.functionName = functionName
            self.trigger = trigger
            self.admin = admin
            self.logger = logger
            self.paramValues = paramValues
        }
    }

    private let invocations: Invocations
    /// The event being delivered.
    public let event: CloudEvent
    /// The parameters the context was given; `nil` when the trigger captures them.
    private let givenParams: [String: String]?
    /// Which attempt this is, starting at 1; retries of one event share its ``eventId``.
    public let attempt: Int
    /// When this attempt times out.
    public let deadline: Date

    /// The name the function was registered under.
    public var functionName: String { invocations.functionName }

    /// Values captured by the trigger's path patterns, e.g. `["uid": "abc"]` for `users/{uid}`.
    ///
    /// A context the bus or a worker creates works them out from the trigger when they are
    /// read, so a handler that never reads them costs nothing; keep them in a local rather
    /// than reading them again in a loop.
    public var params: [String: String] {
        givenParams ?? invocations.trigger?.match(event) ?? [:]
    }

    /// The Admin clients: messaging, and the other services as the backend offers them.
    public var admin: AdminClients { invocations.admin }

    /// The params and secrets the function reads (see ``ParamReading``).
    public var paramValues: ParamValues { invocations.paramValues }

    /// Creates a context.
    public init(
        functionName: String,
        event: CloudEvent,
        params: [String: String] = [:],
        attempt: Int = 1,
        deadline: Date = .distantFuture,
        admin: AdminClients = AdminClients(),
        paramValues: ParamValues = ParamValues(),
        logger: Logger
    ) {
        self.invocations = Invocations(functionName: functionName, trigger: nil, admin: admin, logger: logger,
            paramValues: paramValues)
        self.event = event
        self.givenParams = params
        self.attempt = attempt
        self.deadline = deadline
    }

    /// Creates a context whose ``params`` are what `trigger` captures of `event` (read lazily).
    package init(
        functionName: String,
        event: CloudEvent,
        trigger: EventTrigger,
        attempt: Int,
        deadline: Date,
        admin: AdminClients,
        paramValues: ParamValues = ParamValues(),
        logger: Logger
    ) {
        self.init(
            event: event,
            invocations: Invocations(functionName: functionName, trigger: trigger, admin: admin, logger: logger,
                paramValues: paramValues),
            attempt: attempt,
            deadline: deadline
        )
    }

    /// Creates a context for one invocation of a function whose shared parts are `invocations`;
    /// ``params`` are what its trigger captures of `event` (read lazily).
    package init(event: CloudEvent, invocations: Invocations, attempt: Int, deadline: Date) {
        self.invocations = invocations
        self.event = event
        self.givenParams = nil
        self.attempt = attempt
        self.deadline = deadline
    }

    /// The event's id, the same on every retry: the key for idempotent handlers.
    public var eventId: String { event.id }
    /// When the event happened.
    public var timestamp: Date { event.time ?? deadline }
    /// The event's CloudEvent type.
    public var eventType: String { event.type }

    /// The resource the event is about, in the legacy form: `projects/_/instances/{db}/refs/{path}`
    /// for the database, `projects/{project}` for Remote Config and Auth.
    public var resource: String {
        if event.type.hasPrefix("google.firebase.database."),
            let instance = event[attribute: "instance"], let ref = event[attribute: "ref"]
        {
            return "projects/_/instances/\(instance)/refs/\(DataSnapshot.trim(ref))"
        }
        guard let hostEnd = event.source.dropFirst(2).firstIndex(of: "/"), event.source.hasPrefix("//") else {
            return event.source
        }
        return String(event.source[event.source.index(after: hostEnd)...])
    }

    /// For database events, who made the write: `admin`, `app_user`, `unauthenticated` or `unknown`.
    public var authType: String? {
        guard event.type.hasPrefix("google.firebase.database.") else { return nil }
        return event[attribute: "authtype"] ?? "unknown"
    }

    /// For database writes by an app user, the user's uid.
    public var authId: String? { event[attribute: "authid"] }

    /// The Messaging client.
    public var messaging: any MessagingClient { admin.messaging }

    /// The Realtime Database client; its writes count as made by this invocation.
    public var database: any DatabaseClient { admin.database.handling(event) }

    /// The Authentication client.
    public var auth: any AuthClient { admin.auth }

    /// The Remote Config client.
    public var remoteConfig: any RemoteConfigAdminClient { admin.remoteConfig }

    /// Cloud Firestore (the default database); the same as `admin.firestore`.
    public var firestore: any FirestoreClient { admin.firestore }

    /// Pub/Sub publishing; the same as `admin.pubsub`.
    public var pubsub: any PubSubClient { admin.pubsub }
    /// Enqueuing tasks to task-queue functions; the same as `admin.tasks`.
    public var tasks: any TaskQueueClient { admin.tasks }

    /// A logger carrying the function name, event id and event type as metadata.
    public var logger: Logger {
        var logger = invocations.logger
        logger[metadataKey: "function"] = "\(functionName)"
        logger[metadataKey: "event.id"] = "\(event.id)"
        logger[metadataKey: "event.type"] = "\(event.type)"
        if attempt > 1 { logger[metadataKey: "attempt"] = "\(attempt)" }
        return logger
    }
}
