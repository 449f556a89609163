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

/// Google's Firestore and Pub/Sub emulators, for the functions that trigger on them: started
/// when a deployment needs them (or at start, when told), part of the server's one lifecycle,
/// and stopped with it.
///
/// The Firestore emulator is told to POST its trigger events to this server, which commits
/// them to the outbox before it answers, and delivers them from there like every other event.
package final class GoogleEmulators: Service, Sendable {
    package let firestore: GoogleEmulator
    package let pubsub: GoogleEmulator
    private let tasks = TaskScope()
    private let logger: Logger

    /// - Parameters:
    ///   - environment: where `JAVA_HOME`, `PATH` and the emulator variables are read.
    ///   - functionsEmulator: this server's `host:port`, once it listens.
    init(environment: [String: String], logger: Logger, functionsEmulator: @escaping @Sendable () -> String?) {
        self.logger = logger
        firestore = GoogleEmulator(kind: .firestore, environment: environment, tasks: tasks, logger: logger,
            functionsEmulator: functionsEmulator)
        pubsub = GoogleEmulator(kind: .pubsub, environment: environment, tasks: tasks, logger: logger,
            functionsEmulator: functionsEmulator)
    }

    /// Runs the emulators started until a graceful shutdown, which stops them.
    package func run() async {
        await withGracefulShutdownHandler {
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
        if !databases.isEmpty {
            do {
                let address = try await firestore.start()
                for database in databases.sorted() {
                    try await FirestoreEvents.register(database: database, project: project, at: address)
                }
            } catch {
                logger.warning("Firestore triggers will not fire: \(error)")
            }
        }
        if triggers.contains(where: { $0.eventType == FirebaseEventType.pubSubPublished }) {
            do {
                try await pubsub.start()
            } catch {
                logger.warning("Pub/Sub triggers will not fire: \(error)")
            }
        }
    }
}
