import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import Foundation
import FunctionsBuiltins
import Testing

@Suite("Testing handlers with wrap()")
struct WrappedFunctionTests {
    @Test("calls a Remote Config handler with a version")
    func remoteConfig() async throws {
        let recorder = RecordingMessaging()
        var functions = FunctionRegistry()
        functions.use(PushConfig())
        let pushConfig = try functions.wrap("pushConfig", admin: AdminClients(messaging: recorder))
        try await pushConfig(TemplateVersion.example(versionNumber: 3))
        #expect(recorder.sentMessages == [PushConfig().message])
    }

    @Test("calls database handlers with changes and snapshots, filling params from the path")
    func database() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["write"] = Database.ref("/scores/{scoreId}").onWrite { change, context in
            calls.add("write \(context.params["scoreId"]!) \(change.before.val().serialized(sortedKeys: true)) → "
                + change.after.val().serialized(sortedKeys: true))
        }
        functions["create"] = Database.ref("users/{uid}").onCreate { snapshot, context in
            calls.add("create \(context.params["uid"]!) \(snapshot.child("name").val().serialized())")
        }
        functions["delete"] = Database.ref("users/{uid}").onDelete { snapshot, context in
            calls.add("delete \(snapshot.key!) \(snapshot.exists()) \(context.resource)")
        }
        try await functions.wrap("write")(
            Change.make(before: ["p": "a", "s": 1], after: ["p": "a", "s": 5], path: "scores/s1")
        )
        try await functions.wrap("create")(DataSnapshot(["name": "Ann"]), params: ["uid": "u1"])
        try await functions.wrap("delete", instance: "db1")(DataSnapshot(["name": "Ann"], path: "users/u2"))
        #expect(calls.all == [
            #"write s1 {"p":"a","s":1} → {"p":"a","s":5}"#,
            #"create u1 "Ann""#,
            "delete u2 true projects/_/instances/db1/refs/users/u2",
        ])
        await #expect(throws: WrapError.self) { try await functions.wrap("create")(DataSnapshot(["name": "x"])) }
        #expect(throws: WrapError.self) { try functions.wrap("missing") }
    }

    @Test("calls an auth handler with a user")
    func auth() async throws {
        let calls = Calls()
        var functions = FunctionRegistry()
        functions["greet"] = Auth.user().onCreate { user, context in
            calls.add("\(user.uid) \(user.email ?? "") \(context.eventType) \(context.resource)")
        }
        try await functions.wrap("greet", project: "p1")(UserRecord.example(uid: "u9", email: "a@b.c"))
        #expect(calls.all == ["u9 a@b.c google.firebase.auth.user.v1.created projects/p1"])
    }

    @Test("a handler's error reaches the test")
    func errors() async throws {
        var functions = FunctionRegistry()
        functions["fails"] = RemoteConfig.onUpdate { _, _ in throw HandlerFailure() }
        await #expect(throws: HandlerFailure.self) { try await functions.wrap("fails")(TemplateVersion.example()) }
        let noData = CloudEvent(id: "1", source: "/s", type: FirebaseEventType.remoteConfigUpdated)
        await #expect(throws: EventPayloadError.self) { try await functions.wrap("fails")(noData) }
    }
}
