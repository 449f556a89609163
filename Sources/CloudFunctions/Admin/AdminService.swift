/// A Firebase service a function calls through its Admin clients. Deploy targets grant the
/// account functions run as the role each one needs.
public enum AdminService: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    /// Cloud Messaging (`context.messaging`).
    case messaging
    /// Remote Config templates (`context.remoteConfig`).
    case remoteConfig
    /// The Realtime Database (`context.database`).
    case database
    /// Authentication's users (`context.auth`).
    case auth
    /// Cloud Firestore (`context.firestore`).
    case firestore
    /// Pub/Sub publishing (`context.pubsub`).
    case pubsub
    /// Enqueuing to task queues (`context.tasks`).
    case tasks

    public static func < (lhs: AdminService, rhs: AdminService) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
