import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirestoreTriggers
import FunctionsBus
import Foundation
import Synchronization
import Testing

/// Firestore triggers as the bus runs them: which events each takes, and what the handler gets.
@Suite("Firestore: document triggers")
struct FirestoreTriggerTests {
    @Test("each handler gets the writes of its kind on matching documents, with the path's parameters")
    func kindsAndParams() async throws {
        let calls = Mutex<[String]>([])
        @Sendable func record(_ text: String) { calls.withLock { $0.append(text) } }
        var functions = FunctionRegistry()
        functions["written"] = Firestore.document("users/{uid}").onWrite { change, context in
            record("written \(context.params["uid"]!) \(change.before.exists)→\(change.after.exists)")
        }
        functions["created"] = Firestore.document("users/{uid}").onCreate { document, _ in record("created \(document.id)") }
        functions["deleted"] = Firestore.document("users/alice").onDelete { document, _ in record("deleted \(document["name"]?.stringValue ?? "")") }
        functions["deep"] = Firestore.document("users/{rest=**}").onWrite { _, context in record("deep \(context.params["rest"]!)") }
        functions["otherDatabase"] = Firestore.database("mydb").document("users/{uid}").onWrite { _, _ in record("mydb") }
        let runtime = try TestRuntime(functions)
        try await runtime.withRunning {
            for (name, type) in [("v2-written.create", "created"), ("v2-written.delete", "deleted")] {
                var event = try Fixture.event(name)
                event.type = "google.cloud.firestore.document.v1.\(type)"
                var written = event
                written.type = FirestoreDocumentTrigger.EventType.written
                written.id += "-written"
                await runtime.deliver(event)
                await runtime.deliver(written)
            }
        }
        #expect(calls.withLock { $0 }.sorted() == [
            "created alice", "deep alice", "deep alice", "deleted Alice", "written alice false→true", "written alice true→false",
        ])
        #expect(runtime.deliveries.all.allSatisfy { $0.status == .succeeded })
    }

    @Test("the manifest names the event type, the database filters and the document pattern")
    func manifest() throws {
        var functions = FunctionRegistry()
        functions["pattern"] = Firestore.document("gameScores/{scoreId}").onWrite { _, _ in }
        functions["exact"] = Firestore.database("mydb").document("config/main").onUpdate { _, _ in }
        functions["bad"] = Firestore.document("a/{x}/{x}").onDelete { _, _ in }
        let pattern = try #require(functions.functions.first { $0.name == "pattern" }?.function.eventTrigger)
        #expect(pattern.eventType == "google.cloud.firestore.document.v1.written")
        #expect(pattern.filters == ["database": "(default)", "namespace": "(default)"])
        #expect(pattern.pathPatterns["document"]?.text == "gameScores/{scoreId}")
        let exact = try #require(functions.functions.first { $0.name == "exact" }?.function.eventTrigger)
        #expect(exact.filters == ["database": "mydb", "namespace": "(default)", "document": "config/main"])
        #expect(exact.pathPatterns.isEmpty)
        let manifest = functions.manifest().endpoints["pattern"]?.eventTrigger
        #expect(manifest?.eventType == "google.cloud.firestore.document.v1.written")
        #expect(manifest?.eventFilters == ["database": "(default)", "namespace": "(default)"])
        #expect(manifest?.eventFilterPathPatterns == ["document": "gameScores/{scoreId}"])
        let refused = try #require(throws: RegistryError.self) { try functions.validate() }
        #expect(refused.problems.map(\.function) == ["bad"])
    }
}
