/// The Admin clients a handler reaches through its context, bound to one backend: the
/// in-process emulator, an emulator over HTTP, or a recorder in tests.
public struct AdminClients: Sendable {
    /// Cloud Messaging.
    public var messaging: any MessagingClient
    /// The Realtime Database (the default instance).
    public var database: any DatabaseClient
    /// Authentication.
    public var auth: any AuthClient
    /// Remote Config templates.
    public var remoteConfig: any RemoteConfigAdminClient
    /// Cloud Firestore (the default database).
    public var firestore: any FirestoreClient
    /// Pub/Sub publishing.
    public var pubsub: any PubSubClient
    /// Enqueuing tasks to task-queue functions.
    public var tasks: any TaskQueueClient

    /// Creates the clients; a service left out fails with ``AdminClientError`` when used.
    public init(
        messaging: any MessagingClient = UnavailableMessaging(),
        database: any DatabaseClient = UnavailableDatabase(),
        auth: any AuthClient = UnavailableAuth(),
        remoteConfig: any RemoteConfigAdminClient = UnavailableRemoteConfig(),
        firestore: any FirestoreClient = UnavailableFirestore(),
        pubsub: any PubSubClient = UnavailablePubSub(),
        tasks: any TaskQueueClient = UnavailableTaskQueue()
    ) {
        self.messaging = messaging
        self.database = database
        self.auth = auth
        self.remoteConfig = remoteConfig
        self.firestore = firestore
        self.pubsub = pubsub
        self.tasks = tasks
    }
}

/// A handler used an Admin client that this runtime has no backend for.
public struct AdminClientError: Error, Sendable, CustomStringConvertible {
    /// The service, e.g. `messaging`.
    public var service: String
    /// What would configure one, when the runtime knows.
    public var remedy: String?

    /// Creates an error.
    public init(service: String, remedy: String? = nil) {
        self.service = service
        self.remedy = remedy
    }

    public var description: String {
        "no \(service) backend is configured: " + (remedy ?? "pass one in AdminClients when creating the runtime")
    }
}

/// The messaging client of a runtime without a Messaging backend: every send fails.
public struct UnavailableMessaging: MessagingClient {
    /// Creates the client.
    public init() {}

    public func send(_ message: Message, validateOnly: Bool) async throws -> String {
        throw AdminClientError(service: "messaging")
    }
}

/// The database client of a runtime without a database backend: every call fails.
public struct UnavailableDatabase: DatabaseClient {
    let error: AdminClientError

    /// Creates the client; its errors say `remedy` when given.
    public init(remedy: String? = nil) {
        error = AdminClientError(service: "database", remedy: remedy)
    }

    public func get(_ path: String) async throws -> JSONValue { throw error }
    public func set(_ path: String, _ value: JSONValue) async throws { throw error }
    public func update(_ path: String, _ values: [String: JSONValue]) async throws {
        throw error
    }
    public func push(_ path: String, _ value: JSONValue) async throws -> String {
        throw error
    }
    public func delete(_ path: String) async throws { throw error }
    public func getVersioned(_ path: String) async throws -> VersionedValue {
        throw error
    }
    public func set(_ path: String, _ value: JSONValue, ifMatch etag: String) async throws -> VersionedValue? {
        throw error
    }
}

/// The Firestore client of a runtime without a Firestore backend: every call fails.
public struct UnavailableFirestore: FirestoreClient {
    let error: AdminClientError

    /// Creates the client; its errors say `remedy` when given.
    public init(remedy: String? = nil) {
        error = AdminClientError(service: "firestore", remedy: remedy)
    }

    public func get(_ path: String, transaction: String?) async throws -> DocumentSnapshot { throw error }
    public func query(_ query: FirestoreQuery) async throws -> [DocumentSnapshot] { throw error }
    public func commit(_ writes: [FirestoreWrite], transaction: String?) async throws { throw error }
    public func beginTransaction() async throws -> String { throw error }
    public func rollback(_ transaction: String) async throws { throw error }
}

/// The Pub/Sub client of a runtime without a Pub/Sub backend: every publish fails.
public struct UnavailablePubSub: PubSubClient {
    let error: AdminClientError

    /// Creates the client; its errors say `remedy` when given.
    public init(remedy: String? = nil) {
        error = AdminClientError(service: "pubsub", remedy: remedy)
    }

    public func publish(_ messages: [PubSubOutgoingMessage], to topic: String) async throws -> [String] { throw error }
}
