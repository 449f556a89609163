import CloudFunctions

/// One write to a Realtime Database namespace, as the REST API makes it: what it does, where,
/// and on whose behalf (``DatabaseService/write(_:)``).
public struct DatabaseWrite: Sendable {
    /// What the write does at its path.
    public enum Operation: Sendable {
        /// Replaces the data (`PUT`); `null` deletes it.
        case set(JSONValue)
        /// Merges children given as an object, keys being relative paths (`PATCH`).
        case update(JSONValue)
        /// Stores the value under a new push id (`POST`).
        case push(JSONValue)
        /// Removes the data (`DELETE`).
        case delete
    }

    public var operation: Operation
    /// The database instance, such as `demo-project-default-rtdb`.
    public var namespace: String
    public var path: String
    /// Who writes; reported in the events' `authtype`/`authid`.
    public var auth: DatabaseWriteAuth
    /// Write only when the location's current ETag is this one.
    public var ifMatch: String?
    /// Emit no events for this write.
    public var disableTriggers: Bool
    /// How many function-made writes, each triggered by the one before, led to this one.
    public var chainDepth: Int
    /// The `auth` security rules see; `nil` writes as an administrator, past the rules.
    public var rulesAuth: JSONValue?

    /// Creates a write.
    public init(
        _ operation: Operation, namespace: String, path: String, auth: DatabaseWriteAuth = .admin,
        ifMatch: String? = nil, disableTriggers: Bool = false, chainDepth: Int = 0, rulesAuth: JSONValue? = nil
    ) {
        self.operation = operation
        self.namespace = namespace
        self.path = path
        self.auth = auth
        self.ifMatch = ifMatch
        self.disableTriggers = disableTriggers
        self.chainDepth = chainDepth
        self.rulesAuth = rulesAuth
    }
}
