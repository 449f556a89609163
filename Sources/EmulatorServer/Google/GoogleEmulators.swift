import CloudEvents
import CloudFunctions
import FirebaseEmulator
import FirebaseHTTP
import FirestoreTriggers
import Foundation
import FunctionsBus
import Logging
import ProcessSupport
import ServiceLifecycle
import Synchronization

/// Google's Firestore and Pub/Sub emulators, for the functions that trigger on them: started
/// when a deployment needs them (or at start, when told), part of the server's one lifecycle,
/// and stopped with it.
///
/// The Firestore emulator is told to POST its trigger events to this server, which commits
/// them to the outbox before it answers; each Pub/Sub topic with a trigger is pulled, and its
/// messages committed before they are acknowledged. From the outbox they are delivered like
/// every other event.
package final class GoogleEmulators: Service, Sendable {
    package let firestore: GoogleEmulator
    package let pubsub: GoogleEmulator
    private let emulator: Emulator
    private let tasks = TaskScope()
    private let logger: Logger
    /// The pullers running, by topic.
    private let pullers = Mutex<[String: TaskScope.ID]>([:])
    /// The Firestore databases with triggers, registered again whenever the Firestore emulator
    /// (re)starts, and those being cleared.
    private let firestoreTriggers = FirestoreTriggerState()

    /// Shared with the Firestore emulator's restart hook.
    private final class FirestoreTriggerState: Sendable {
        let mutex = Mutex(FirestoreTriggers())

        func withLock<Result>(_ body: (inout FirestoreTriggers) -> Result) -> Result { mutex.withLock { body(&$0) } }
    }

    /// The Firestore databases with triggers, and the clears under way.
    private struct FirestoreTriggers: Sendable {
        var project = ""
        var databases: Set<String> = []
        /// How many clears of each database are under way; its trigger is paused meanwhile.
        var clearing: [String: Int] = [:]

        func isPaused(_ database: String) -> Bool { clearing[database, default: 0] > 0 }
    }

    /// - Parameters:
    ///   - environment: where `JAVA_HOME`, `PATH` and the emulator variables are read.
    ///   - functionsEmulator: this server's `host:port`, once it listens.
    init(
        emulator: Emulator, environment: [String: String], logger: Logger,
        functionsEmulator: @escaping @Sendable () -> String?
    ) {
        self.emulator = emulator
        self.logger = logger
        let firestoreTriggers = firestoreTriggers
        firestore = GoogleEmulator(kind: .firestore, environment: environment, tasks: tasks, logger: logger,
            functionsEmulator: functionsEmulator,
            onServing: { [logger] address in
                let triggers = firestoreTriggers.withLock { $0 }
                for database in triggers.databases.sorted() {
                    do {
                        try await FirestoreEvents.register(database: database, project: triggers.project, at: address,
                            paused: triggers.isPaused(database))
                    } catch {
                        logger.warning("Firestore triggers of database \(database) will not fire: \(error)")
                    }
                }
            })
        pubsub = GoogleEmulator(kind: .pubsub, environment: environment, tasks: tasks, logger: logger,
            functionsEmulator: functionsEmulator)
    }

    /// Runs the emulators started until a graceful shutdown, which stops them.
    package func run() async {
        _ = await withGracefulShutdownHandler {
            await tasks.run()
        } onGracefulShutdown: {
            self.tasks.finish()
        }
    }

    /// Starts what `triggers` need, and registers the Firestore triggers with the Firestore
    /// emulator. What cannot start is said in one warning; everything else goes on.
    func prepare(for triggers: [EventTrigger], project: String) async {
        let databases = Set(triggers.filter { $0.eventType.hasPrefix(FirestoreEvents.typePrefix) }
            .map { $0.filters["database"] ?? Firestore.defaultDatabase })
        firestoreTriggers.withLock { triggers in
            triggers.project = project
            triggers.databases = databases
        }
        if !databases.isEmpty {
            do {
                // Registering again replaces: a first start has registered them as it began to serve.
                let address = try await firestore.start()
                for database in databases.sorted() {
                    let paused = firestoreTriggers.withLock { $0.isPaused(database) }
                    try await FirestoreEvents.register(database: database, project: project, at: address, paused: paused)
                }
            } catch {
                logger.warning("Firestore triggers will not fire: \(error)")
            }
        }
        let topics = Set(triggers.filter { $0.eventType == FirebaseEventType.pubSubPublished }.compactMap { $0.filters["topic"] })
        // A puller per topic with a trigger: those no longer wanted end, new ones start. A new
        // one's subscription is made before the deploy returns, so that what is published from
        // then on is kept for it.
        let ended = pullers.withLock { pullers -> [TaskScope.ID] in
            let gone = pullers.filter { !topics.contains($0.key) }
            for topic in gone.keys { pullers[topic] = nil }
            return Array(gone.values)
        }
        for id in ended { tasks.cancel(id) }
        let new = topics.filter { topic in pullers.withLock { $0[topic] == nil } }
        guard !new.isEmpty else { return }
        let address: HostPort
        do {
            address = try await pubsub.start()
        } catch {
            logger.warning("Pub/Sub triggers will not fire: \(error)")
            return
        }
        for topic in new.sorted() {
            let puller = PubSubPuller(topic: topic, project: project, pubsub: pubsub, emulator: emulator, logger: logger)
            var subscribed: HostPort? = address
            do {
                try await puller.subscribe(at: address)
            } catch {
                logger.warning("could not subscribe to Pub/Sub topic \(topic) yet: \(error)")
                subscribed = nil
            }
            pullers.withLock { pullers in
                guard pullers[topic] == nil else { return }
                pullers[topic] = tasks.spawn { [subscribed] _ in await puller.run(subscribedAt: subscribed) }
            }
        }
    }

    /// Deletes every document of a Firestore database, as the Firestore emulator's own
    /// `DELETE /emulator/v1/projects/{p}/databases/{db}/documents` does, but without the delete
    /// event it fires for each one: the database's trigger is paused while it clears (a write
    /// made by another client during those milliseconds fires nothing either).
    ///
    /// - Returns: the Firestore emulator's answer; `nil` when it was never started (nothing is
    ///   stored).
    package func clearFirestore(project: String, database: String) async throws -> HTTPExchange.Response? {
        if case .idle = firestore.status { return nil }
        let address = try await firestore.address()
        let triggered = firestoreTriggers.withLock { triggers -> Bool in
            guard triggers.project == project, triggers.databases.contains(database) else { return false }
            triggers.clearing[database, default: 0] += 1
            return true
        }
        let cleared: Result<HTTPExchange.Response, any Error>
        do {
            if triggered { try await FirestoreEvents.register(database: database, project: project, at: address, paused: true) }
            let url = address.url(path: "/emulator/v1/projects/\(project)/databases/\(database)/documents")
            cleared = .success(try await HTTPExchange.send("DELETE", url, timeout: .seconds(60)))
        } catch {
            cleared = .failure(error)
        }
        if triggered {
            let resumed = firestoreTriggers.withLock { triggers -> Bool in
                triggers.clearing[database, default: 1] -= 1
                if triggers.clearing[database] == 0 { triggers.clearing[database] = nil }
                return !triggers.isPaused(database) && triggers.databases.contains(database)
            }
            if resumed {
                try await FirestoreEvents.register(database: database, project: project, at: address)
            }
        }
        return try cleared.get()
    }
}
