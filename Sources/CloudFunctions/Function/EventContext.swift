import CloudEvents
import Foundation
import Logging

/// What a handler knows about the invocation: the event, its parameters, the attempt, a
/// logger, and the Admin clients of the backend the function runs against.
public struct EventContext: Sendable {
    /// The name the function was registered under.
    public let functionName: String
    /// The event being delivered.
    public let event: CloudEvent
    /// Values captured by the trigger's path patterns, e.g. `["uid": "abc"]` for `users/{uid}`.
    ///
    /// A context the bus or a worker creates works them out from the trigger when they are
    /// read, so a handler that never reads them costs nothing; keep them in a local rather
    /// than reading them again in a loop.
    public var params: [String: String] {
        switch captures {
        case .values(let values): values
        case .trigger(let trigger): trigger.match(event) ?? [:]
        }
    }
    /// Where ``params`` come from.
    private enum Captures: Sendable {
        case values([String: String])
        case trigger(EventTrigger)
    }
    private let captures: Captures
    /// Which attempt this is, starting at 1; retries of one event share its ``eventId``.
    public let attempt: Int
    /// When this attempt times out.
    public let deadline: Date
    /// The Admin clients: messaging, and the other services as the backend offers them.
    public let admin: AdminClients
    private let baseLogger: Logger

    /// Creates a context.
    public init(
        functionName: String,
        event: CloudEvent,
        params: [String: String] = [:],
        attempt: Int = 1,
        deadline: Date = .distantFuture,
        admin: AdminClients = AdminClients(),
        logger: Logger
    ) {
        self.functionName = functionName
        self.event = event
        self.captures = .values(params)
        self.attempt = attempt
        self.deadline = deadline
        self.admin = admin
        self.baseLogger = logger
    }

    /// Creates a context whose ``params`` are what `trigger` captures of `event` (read lazily).
    package init(
        functionName: String,
        event: CloudEvent,
        trigger: EventTrigger,
        attempt: Int,
        deadline: Date,
        admin: AdminClients,
        logger: Logger
    ) {
        self.functionName = functionName
        self.event = event
        self.captures = .trigger(trigger)
        self.attempt = attempt
        self.deadline = deadline
        self.admin = admin
        self.baseLogger = logger
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

    /// A logger carrying the function name, event id and event type as metadata.
    public var logger: Logger {
        var logger = baseLogger
        logger[metadataKey: "function"] = "\(functionName)"
        logger[metadataKey: "event.id"] = "\(event.id)"
        logger[metadataKey: "event.type"] = "\(event.type)"
        if attempt > 1 { logger[metadataKey: "attempt"] = "\(attempt)" }
        return logger
    }
}
