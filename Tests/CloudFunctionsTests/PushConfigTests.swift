import CloudEvents
import CloudFunctions
import FunctionsBus
import CloudFunctionsTesting
import Foundation
import FunctionsBuiltins
import Testing

@Suite("pushConfig built-in")
struct PushConfigTests {
    static func registry(topic: String = "PUSH_RC", calls: Calls) -> FunctionRegistry {
        var functions = FunctionRegistry()
        functions.use(PushConfig(topic: topic))
        functions["logConfig"] = RemoteConfig.onUpdate { version, context in
            calls.add("logConfig v\(version.versionNumber) \(version.updateType.rawValue) \(context.eventId)")
        }
        functions["greet"] = Auth.user().onCreate { user, _ in calls.add("greet \(user.uid)") }
        return functions
    }

    @Test("a Remote Config update sends exactly one silent STALE message to PUSH_RC")
    func publish() async throws {
        let calls = Calls()
        let runtime = try TestRuntime(Self.registry(calls: calls))
        try await runtime.withRunning {
            let event = CloudEvent.remoteConfigUpdated(.example(versionNumber: 7), project: runtime.project, id: "e7")
            let delivered = await runtime.deliver(event)
            #expect(Set(delivered) == ["pushConfig", "logConfig"])
            #expect(calls.all == ["logConfig v7 INCREMENTAL_UPDATE e7"])

            let sent = runtime.messaging.sentMessages
            #expect(sent.count == 1)
            let message = try #require(sent.first)
            let json = try JSONValue(encoding: message)
            let expected = try Fixture.json("pushconfig-fcm-message.expected.json")
            #expect(json["topic"] == expected["topic"])
            #expect(json["data"] == expected["data"])
            #expect(json["apns"]?["payload"]?["aps"]?["content-available"] == 1)
            #expect(json["apns"]?["headers"]?["apns-priority"] == "5")
            #expect(json["apns"]?["headers"]?["apns-push-type"] == "background")
            #expect(json["android"]?["priority"] == "high")
            #expect(json["notification"] == nil)
        }
    }

    @Test("a rollback sends the message too")
    func rollback() async throws {
        let calls = Calls()
        let runtime = try TestRuntime(Self.registry(topic: "CONFIG_UPDATES", calls: calls))
        await runtime.withRunning {
            let version = TemplateVersion.example(versionNumber: 8, updateType: .rollback, rollbackSource: 6)
            await runtime.deliver(.remoteConfigUpdated(version, project: runtime.project))
            #expect(runtime.messaging.sentMessages.map(\.target) == [.topic("CONFIG_UPDATES")])
            #expect(calls.all.first?.hasPrefix("logConfig v8 ROLLBACK") == true)
        }
    }

    @Test("other events do not trigger it")
    func ignoresOtherEvents() async throws {
        let calls = Calls()
        let runtime = try TestRuntime(Self.registry(calls: calls))
        await runtime.withRunning {
            await runtime.deliver(.authUser(FirebaseEventType.authUserCreated, user: .example(uid: "u1"),
                project: runtime.project))
            #expect(runtime.messaging.sentMessages.isEmpty)
            #expect(calls.all == ["greet u1"])
        }
    }

    @Test("a failed send is retried when retry is on, with the same event id")
    func retriedSend() async throws {
        var functions = FunctionRegistry()
        functions.use(PushConfig(options: [.retry(true)]))
        var configuration = EventBus.Configuration()
        configuration.random = { 0 }
        let runtime = try TestRuntime(functions, configuration: configuration)
        await runtime.withRunning {
            runtime.messaging.failNextSends(1)
            await runtime.deliver(.remoteConfigUpdated(.example(), project: runtime.project, time: runtime.clock.now))
            #expect(runtime.messaging.sentMessages.isEmpty)
            await runtime.advance(by: .seconds(10))
            #expect(runtime.messaging.sentMessages.count == 1)
            let reports = runtime.deliveries.reports(for: "pushConfig")
            #expect(reports.map(\.attempt) == [1, 2])
            #expect(Set(reports.map(\.eventId)).count == 1)
        }
    }

    @Test("without a Messaging backend the failure says what is missing")
    func unconfigured() async throws {
        var functions = FunctionRegistry()
        functions.use(PushConfig())
        let pushConfig = try functions.wrap("pushConfig")
        await #expect {
            try await pushConfig(TemplateVersion.example())
        } throws: { "\($0)".contains("no messaging backend is configured") }
    }
}
