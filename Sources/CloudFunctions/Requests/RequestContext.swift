import Foundation
import Logging

/// What a request function knows beyond the request: its name, its deadline, a logger, the
/// Admin clients of its backend, and how to check the tokens callers present.
public struct RequestContext: Sendable {
    /// The name the function was registered under.
    public let functionName: String
    /// When the request times out.
    public let deadline: Date
    /// The time source the deadline is on.
    public let clock: any BusClock
    /// The Admin clients.
    public let admin: AdminClients
    /// Checks ID tokens, App Check tokens and the tokens of blocking calls.
    public let tokens: any TokenVerifier
    /// The region the function runs in.
    public let region: String
    /// The URL the request was addressed to (`https://`, its host and path), when it came over
    /// HTTP: a blocking call's token must name it, or the function's production URL.
    public let receivedAt: String?
    /// The params and secrets the function reads (see ``ParamReading``).
    public let paramValues: ParamValues
    private let baseLogger: Logger

    /// Creates a context.
    public init(
        functionName: String,
        deadline: Date = .distantFuture,
        clock: any BusClock = SystemClock(),
        admin: AdminClients = AdminClients(),
        tokens: any TokenVerifier,
        region: String = "us-central1",
        receivedAt: String? = nil,
        paramValues: ParamValues = ParamValues(),
        logger: Logger
    ) {
        self.paramValues = paramValues
        self.functionName = functionName
        self.deadline = deadline
        self.clock = clock
        self.admin = admin
        self.tokens = tokens
        self.region = region
        self.receivedAt = receivedAt
        self.baseLogger = logger
    }

    /// A logger carrying the function name as metadata.
    public var logger: Logger {
        var logger = baseLogger
        logger[metadataKey: "function"] = "\(functionName)"
        return logger
    }

    /// The Realtime Database client.
    public var database: any DatabaseClient { admin.database }
    /// The Authentication client.
    public var auth: any AuthClient { admin.auth }
    /// The Messaging client.
    public var messaging: any MessagingClient { admin.messaging }
    /// The Remote Config client.
    public var remoteConfig: any RemoteConfigAdminClient { admin.remoteConfig }
    /// Cloud Firestore (the default database).
    public var firestore: any FirestoreClient { admin.firestore }
    /// Pub/Sub publishing.
    public var pubsub: any PubSubClient { admin.pubsub }
    /// Enqueuing tasks to task-queue functions; the same as `admin.tasks`.
    public var tasks: any TaskQueueClient { admin.tasks }
}
