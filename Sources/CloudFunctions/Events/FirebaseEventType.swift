/// The CloudEvent types Firebase products emit and triggers subscribe to.
public enum FirebaseEventType {
    /// A Remote Config template was published or rolled back.
    public static let remoteConfigUpdated = "google.firebase.remoteconfig.remoteConfig.v1.updated"
    /// Realtime Database data was created, updated or deleted.
    public static let databaseWritten = "google.firebase.database.ref.v1.written"
    /// Realtime Database data was created.
    public static let databaseCreated = "google.firebase.database.ref.v1.created"
    /// Realtime Database data was updated.
    public static let databaseUpdated = "google.firebase.database.ref.v1.updated"
    /// Realtime Database data was deleted.
    public static let databaseDeleted = "google.firebase.database.ref.v1.deleted"
    /// A Firebase Authentication user was created.
    public static let authUserCreated = "google.firebase.auth.user.v1.created"
    /// A Firebase Authentication user was deleted.
    public static let authUserDeleted = "google.firebase.auth.user.v1.deleted"
    /// An Analytics event was logged.
    public static let analyticsLogged = "google.firebase.analytics.log.v1.written"
    /// A Pub/Sub message was published.
    public static let pubSubPublished = "google.cloud.pubsub.topic.v1.messagePublished"

    /// The CloudEvent `source` of Remote Config events.
    public static func remoteConfigSource(project: String) -> String {
        "//firebaseremoteconfig.googleapis.com/projects/\(project)"
    }

    /// The CloudEvent `source` of Realtime Database events.
    public static func databaseSource(location: String = "us-central1", instance: String) -> String {
        "//firebasedatabase.googleapis.com/projects/_/locations/\(location)/instances/\(instance)"
    }

    /// The CloudEvent `source` of Authentication events.
    public static func authSource(project: String) -> String {
        "//firebaseauth.googleapis.com/projects/\(project)"
    }

    /// The CloudEvent `source` of Analytics events.
    public static func analyticsSource(project: String, appId: String) -> String {
        "//firebaseanalytics.googleapis.com/projects/\(project)/apps/\(appId)"
    }
}
