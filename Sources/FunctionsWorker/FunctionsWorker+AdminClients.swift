import CloudFunctions
import FirebaseHTTP
import Foundation
import GoogleAuth

extension FunctionsWorker {
    /// The variables that point the Admin clients at an emulator.
    static let emulatorVariables = [
        "FUNCTIONS_EMULATOR_URL", "FIREBASE_DATABASE_EMULATOR_HOST", "FIREBASE_AUTH_EMULATOR_HOST",
        "FIRESTORE_EMULATOR_HOST", "PUBSUB_EMULATOR_HOST", "CLOUD_TASKS_EMULATOR_HOST",
    ]

    /// Whether the environment calls for an emulator's clients: one of ``emulatorVariables`` is
    /// set, or `FUNCTIONS_EMULATOR=true` (which the emulator sets for every worker it runs, so
    /// that none of them ever reaches Google, whatever credentials the machine holds).
    static func isEmulated(_ environment: [String: String]) -> Bool {
        environment["FUNCTIONS_EMULATOR"] == "true" || emulatorVariables.contains { environment[$0].map { !$0.isEmpty } ?? false }
    }

    /// The Admin clients the environment calls for. One rule picks the mode: an emulator's
    /// clients when an emulator variable is set (see ``isEmulated(_:)``), else Google's services,
    /// whatever a URL looks like.
    ///
    /// - Emulator: `FUNCTIONS_EMULATOR_URL` (set by the emulator for the workers it runs) serves
    ///   every service; `FIREBASE_DATABASE_EMULATOR_HOST` and `FIREBASE_AUTH_EMULATOR_HOST`
    ///   (`host:port`, as the Admin SDKs read them) serve the database and auth;
    ///   `FIRESTORE_EMULATOR_HOST` and `PUBSUB_EMULATOR_HOST` Firestore and Pub/Sub, which are
    ///   otherwise asked of `FUNCTIONS_EMULATOR_URL` (`GET /emulators`) when first used;
    ///   `CLOUD_TASKS_EMULATOR_HOST`, else `FUNCTIONS_EMULATOR_URL`, the task queues. A
    ///   service none of them serves is unavailable. The project comes from `GOOGLE_CLOUD_PROJECT` or
    ///   `GCLOUD_PROJECT`; the database instance from `FIREBASE_DATABASE_NAMESPACE`, else
    ///   `{project}-default-rtdb`. The token is the emulators' `owner`.
    /// - Production: Cloud Messaging, Remote Config and Authentication at Google (or at
    ///   `FIREBASE_MESSAGING_URL_BASE`, `FIREBASE_REMOTE_CONFIG_URL_BASE`,
    ///   `FIREBASE_AUTH_URL_BASE`), Firestore, Pub/Sub and Cloud Tasks at Google (or at
    ///   `FIRESTORE_URL_BASE`, `PUBSUB_URL_BASE`, `CLOUD_TASKS_URL_BASE`), and the Realtime Database at `FIREBASE_CONFIG`'s
    ///   `databaseURL` (else `https://{project}-default-rtdb.firebaseio.com` when the project is
    ///   named), all with ``ApplicationDefaultCredentials``. Nothing is fetched until a handler
    ///   makes its first call.
    ///
    /// - Throws: ``FirebaseAppConfigError`` for an invalid `FIREBASE_CONFIG` or base URL.
    public static func adminClients(environment: [String: String]) throws(FirebaseAppConfigError) -> AdminClients {
        isEmulated(environment) ? emulatorClients(environment) : try productionClients(environment)
    }

    /// The clients of an emulator.
    static func emulatorClients(_ environment: [String: String]) -> AdminClients {
        guard let project = project(environment) else { return AdminClients() }
        let emulator = environment["FUNCTIONS_EMULATOR_URL"].flatMap(URL.init(string:))
        func host(_ name: String) -> URL? {
            environment[name].flatMap { $0.isEmpty || $0.contains("//") ? nil : URL(string: "http://\($0)") }
        }
        var clients = AdminClients()
        if let emulator {
            clients.messaging = HTTPMessagingClient(baseURL: emulator, project: project)
            clients.remoteConfig = HTTPRemoteConfigClient(baseURL: emulator, project: project)
        }
        if let base = host("FIREBASE_DATABASE_EMULATOR_HOST") ?? emulator {
            let namespace = environment["FIREBASE_DATABASE_NAMESPACE"] ?? "\(project)-default-rtdb"
            // This repository's emulator (the database at FUNCTIONS_EMULATOR_URL) serves batched reads.
            let ours = emulator.map { $0.host == base.host && $0.port == base.port } ?? false
            clients.database = HTTPDatabaseClient(baseURL: base, namespace: namespace, batchesReads: ours)
        }
        if let base = host("FIREBASE_AUTH_EMULATOR_HOST") ?? emulator {
            clients.auth = HTTPAuthClient(emulator: base, project: project)
        }
        // Google's emulators: where the variables say, else where this repository's emulator runs them.
        if let base = host("FIRESTORE_EMULATOR_HOST") {
            clients.firestore = HTTPFirestoreClient(baseURL: base, credentials: FixedCredentials(project: project))
        } else if let emulator {
            clients.firestore = HTTPFirestoreClient(emulatorHub: emulator, project: project)
        }
        if let base = host("PUBSUB_EMULATOR_HOST") {
            clients.pubsub = HTTPPubSubClient(baseURL: base, credentials: FixedCredentials(project: project))
        } else if let emulator {
            clients.pubsub = HTTPPubSubClient(emulatorHub: emulator, project: project)
        }
        if let base = host("CLOUD_TASKS_EMULATOR_HOST") ?? emulator {
            clients.tasks = HTTPTaskQueueClient(emulator: base, project: project)
        }
        return clients
    }

    /// The clients of Google's services.
    static func productionClients(_ environment: [String: String]) throws(FirebaseAppConfigError) -> AdminClients {
        let config = try FirebaseAppConfig.from(environment)
        let credentials = ApplicationDefaultCredentials(environment: environment, configuredProject: config?.projectID)
        func base(_ variable: String, _ google: URL) throws(FirebaseAppConfigError) -> URL {
            guard let value = environment[variable], !value.isEmpty else { return google }
            guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host?.isEmpty == false
            else { throw FirebaseAppConfigError("\(variable) '\(value)' is not an http(s) URL") }
            return url
        }
        var clients = AdminClients(
            messaging: HTTPMessagingClient(
                baseURL: try base("FIREBASE_MESSAGING_URL_BASE", HTTPMessagingClient.productionBaseURL),
                credentials: credentials),
            auth: HTTPAuthClient(baseURL: try base("FIREBASE_AUTH_URL_BASE", HTTPAuthClient.productionBaseURL),
                credentials: credentials),
            remoteConfig: HTTPRemoteConfigClient(
                baseURL: try base("FIREBASE_REMOTE_CONFIG_URL_BASE", HTTPRemoteConfigClient.productionBaseURL),
                credentials: credentials),
            firestore: HTTPFirestoreClient(
                baseURL: try base("FIRESTORE_URL_BASE", HTTPFirestoreClient.productionBaseURL), credentials: credentials),
            pubsub: HTTPPubSubClient(
                baseURL: try base("PUBSUB_URL_BASE", HTTPPubSubClient.productionBaseURL), credentials: credentials),
            tasks: HTTPTaskQueueClient(
                baseURL: try base("CLOUD_TASKS_URL_BASE", HTTPTaskQueueClient.productionBaseURL), credentials: credentials)
        )
        let databaseURL = config?.databaseURL
            ?? project(environment, config: config).flatMap { URL(string: "https://\($0)-default-rtdb.firebaseio.com") }
        if let databaseURL {
            do {
                clients.database = try HTTPDatabaseClient(databaseURL: databaseURL, credentials: credentials)
            } catch {
                throw FirebaseAppConfigError("FIREBASE_CONFIG: \((error as? AdminHTTPError)?.message ?? "\(error)")")
            }
        } else {
            clients.database = UnavailableDatabase(remedy: "set FIREBASE_CONFIG's databaseURL (or GOOGLE_CLOUD_PROJECT, "
                + "for the default instance https://PROJECT-default-rtdb.firebaseio.com)")
        }
        return clients
    }

    /// The Google Cloud project the environment names: `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT`,
    /// else `FIREBASE_CONFIG`'s `projectId`. (In production the metadata server may name it
    /// later; see ``ApplicationDefaultCredentials``.)
    static func project(_ environment: [String: String]) -> String? {
        project(environment, config: (try? FirebaseAppConfig.from(environment)) ?? nil)
    }

    /// The same, with `FIREBASE_CONFIG` already read.
    static func project(_ environment: [String: String], config: FirebaseAppConfig?) -> String? {
        for name in ["GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"] {
            if let project = environment[name], !project.isEmpty { return project }
        }
        return config?.projectID
    }
}
