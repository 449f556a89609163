import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import Foundation
import FunctionsBus
import Synchronization
import Testing

/// Pub/Sub triggers: the message a handler gets, and which topic's events it takes.
@Suite("Pub/Sub: topic triggers")
struct PubSubTriggerTests {
    struct Submission: Codable, Equatable {
        var playerName: String
        var score: Int
    }

    @Test("a handler gets its topic's messages, whole, and no other topic's")
    func messages() async throws {
        let received = Mutex<[PubSubMessage]>([])
        var functions = FunctionRegistry()
        functions["onScoreSubmitted"] = PubSub.topic("score-submissions").onMessagePublished { message, _ in
            received.withLock { $0.append(message) }
        }
        let runtime = try TestRuntime(functions)
        let message = PubSubMessage(
            data: try JSONEncoder().encode(Submission(playerName: "ada", score: 42)), attributes: ["source": "ios"],
            messageId: "17", publishTime: Date(timeIntervalSince1970: 1_767_323_045.884), orderingKey: "ada")
        try await runtime.withRunning {
            #expect(await runtime.deliver(.pubSubMessagePublished(message, project: runtime.project, topic: "score-submissions"))
                == ["onScoreSubmitted"])
            #expect(await runtime.deliver(.pubSubMessagePublished(message, project: runtime.project, topic: "other-topic"))
                .isEmpty)
        }
        let got = try #require(received.withLock { $0 }.first)
        #expect(received.withLock { $0.count } == 1)
        #expect(got == message)
        #expect(try got.json(as: Submission.self) == Submission(playerName: "ada", score: 42))
    }

    @Test("the data reads as the Pub/Sub emulator pushes it: both key spellings, escaped slashes")
    func pushedShape() throws {
        let http = String(decoding: try Fixture.data("pubsub-push-wrapped.http"), as: UTF8.self)
        let body = try #require(http.components(separatedBy: "\r\n\r\n").last)
        let data = try JSONDecoder().decode(MessagePublishedData.self, from: Data(body.utf8))
        #expect(data.subscription == "projects/demo-proj/subscriptions/sub-push")
        #expect(data.message.messageId == "3")
        #expect(data.message.attributes == ["color": "red"])
        #expect(data.message.text == #"{"hello":"world"}"#)
        #expect(data.message.publishTime == RFC3339Timestamp.date(from: "2026-11-28T20:23:57.884Z"))
        #expect(data.message.orderingKey == nil)
    }

    @Test("a message without an id or time, or with data that is not base64, fails the delivery")
    func malformed() async throws {
        var functions = FunctionRegistry()
        functions["f"] = PubSub.topic("t-1").onMessagePublished { _, _ in }
        let runtime = try TestRuntime(functions)
        try await runtime.withRunning {
            for body in [#"{"message": {"data": "", "publishTime": "2026-01-01T00:00:00Z"}, "subscription": "s"}"#,
                #"{"message": {"data": "", "messageId": "1"}, "subscription": "s"}"#,
                #"{"message": {"data": "***", "messageId": "1", "publishTime": "2026-01-01T00:00:00Z"}, "subscription": "s"}"#]
            {
                var event = CloudEvent.pubSubMessagePublished(
                    PubSubMessage(data: Data(), messageId: UUID().uuidString), project: "p", topic: "t-1")
                event.data = Data(body.utf8)
                await runtime.deliver(event)
            }
        }
        #expect(runtime.deliveries.all.count == 3)
        #expect(runtime.deliveries.all.allSatisfy { $0.error?.contains("cannot read the data") == true })
    }

    @Test("the manifest filters on the topic; a name Pub/Sub refuses is a registry problem")
    func manifest() throws {
        var functions = FunctionRegistry()
        functions["ok"] = PubSub.topic("score-submissions").onMessagePublished { _, _ in }
        #expect(functions.manifest().endpoints["ok"]?.eventTrigger?.eventFilters == ["topic": "score-submissions"])
        #expect(functions.manifest().endpoints["ok"]?.eventTrigger?.eventType == "google.cloud.pubsub.topic.v1.messagePublished")
        for bad in ["ab", "1topic", "googles", "with space"] {
            var refused = FunctionRegistry()
            refused["f"] = PubSub.topic(bad).onMessagePublished { _, _ in }
            #expect(throws: RegistryError.self, "\(bad)") { try refused.validate() }
        }
    }
}
