import CloudFunctions
import Foundation
import FunctionsWorker
import Logging
import Synchronization

/// A functions binary for rehearsing the container contract (conformance/test_container.py):
/// each function logs `handled` with the event id once it has finished, so the test can count
/// from the logs what ran. The Remote Config function acts on the version's description:
/// `fail-first` fails the first attempt of each event, `slow` takes 1.5 s (it logs `started`
/// first), `hang` outlives the 3 s timeout. `oneAtATime` takes one event per instance and at
/// most three instances (`slow` and `slow-one-at-a-time` take it 1.5 s; the second leaves the
/// function with a 3 s timeout quick, so that a busy machine cannot make it time out).
@main
struct RehearsalWorker: FunctionsApp {
    static let failed = Mutex<Set<String>>([])

    static func register(_ functions: inout FunctionRegistry) {
        functions["configUpdated"] = RemoteConfig.onUpdate { version, context in
            context.logger.info("started")
            switch version.description {
            case "fail-first":
                if failed.withLock({ $0.insert(context.eventId).inserted }) {
                    throw RehearsalFailure(description: "first attempt of \(context.eventId) fails")
                }
            case "slow": try await Task.sleep(for: .milliseconds(1500))
            case "hang": try await Task.sleep(for: .seconds(60))
            default: break
            }
            context.logger.info("handled")
        }.options(.timeout(.seconds(3)))
        // One event at a time per instance, up to three instances: the emulator scales it out.
        functions["oneAtATime"] = RemoteConfig.onUpdate { version, context in
            if ["slow", "slow-one-at-a-time"].contains(version.description) {
                try await Task.sleep(for: .milliseconds(1500))
            }
            context.logger.info("handled")
        }.options(.concurrency(1), .maxInstances(3))
        functions["scoreWritten"] = Database.ref("scores/{id}").onWrite { _, context in
            context.logger.info("handled", metadata: ["score": "\(context.params["id"] ?? "")"])
        }
        // A hop to the main actor: it returns only if the process serves the main queue.
        functions["mainActor"] = Https.onRequest { _, response in
            response.send(await MainActor.run { "ran on the main actor" })
        }
    }
}

struct RehearsalFailure: Error, CustomStringConvertible {
    let description: String
}
