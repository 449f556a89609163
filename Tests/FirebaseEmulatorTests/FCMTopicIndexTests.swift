import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("FCM topic index")
struct FCMTopicIndexTests {
    private func condition(_ text: String) throws -> FCMTopicCondition {
        try FCMTopicCondition(parsing: text)
    }

    @Test("subscribing and unsubscribing keeps both directions in step")
    func subscribeUnsubscribe() {
        var index = FCMTopicIndex()
        let first = index.subscribe(token: "t1", to: "news")
        let again = index.subscribe(token: "t1", to: "news")
        let batch = index.subscribe(tokens: ["t2", "t3"], to: "news")
        #expect(first == .success && again == .success && batch == [.success, .success])
        index.subscribe(token: "t1", to: "sport")
        #expect(index.tokens(forTopic: "news") == ["t1", "t2", "t3"])
        #expect(index.tokens(forTopic: "/topics/news").count == 3)
        #expect(index.topics(forToken: "t1") == ["news", "sport"])
        let removed = index.unsubscribe(token: "t1", from: "news")
        let removedAgain = index.unsubscribe(token: "t1", from: "news")
        #expect(removed && !removedAgain)
        let batchRemoved = index.unsubscribe(tokens: ["t2", "t9"], from: "news")
        #expect(batchRemoved == [true, false])
        #expect(index.subscriberCount(forTopic: "news") == 1)
        index.unsubscribe(token: "t3", from: "news")
        #expect(index.subscribers["news"] == nil)
        let dropped = index.removeToken("t1")
        #expect(dropped == ["sport"])
        #expect(index == FCMTopicIndex())
    }

    @Test("a token may hold 2000 topics, not 2001")
    func topicLimit() {
        var index = FCMTopicIndex()
        let outcomes = (0..<FCMTopicIndex.maxTopicsPerToken).map { index.subscribe(token: "t", to: "topic\($0)") }
        #expect(outcomes.allSatisfy { $0 == .success })
        let overLimit = index.subscribe(token: "t", to: "one-more")
        let existing = index.subscribe(token: "t", to: "topic0")
        #expect(overLimit == .failure(.tooManyTopics))
        #expect(existing == .success)
        #expect(index.topics(forToken: "t").count == 2000)
    }

    @Test("condition fan-out matches evaluating each device's topics")
    func conditionFanout() throws {
        var index = FCMTopicIndex()
        let topics = ["A", "B", "C", "D"]
        for number in 0..<64 {
            for (bit, topic) in topics.enumerated() where number & (1 << bit) != 0 {
                index.subscribe(token: "t\(number)", to: topic)
            }
            index.subscribe(token: "t\(number)", to: "other")
        }
        let conditions = [
            "'A' in topics", "'A' in topics && ('B' in topics || 'C' in topics)",
            "'A' in topics || 'B' in topics && 'C' in topics", "'D' in topics && !('A' in topics)",
            "!('A' in topics)", "('A' in topics || 'B' in topics) && ('C' in topics || 'D' in topics)",
            "'missing' in topics", "'missing' in topics || 'A' in topics",
        ]
        for text in conditions {
            let parsed = try condition(text)
            let expected = Set(index.subscriptions.filter { parsed.evaluate(subscribedTo: $0.value) }.keys)
            #expect(index.tokens(forCondition: parsed) == expected, "\(text)")
        }
    }

    @Test("100,000 subscribers on one topic fan out through a topic and a condition")
    func largeTopic() throws {
        var index = FCMTopicIndex()
        let count = 100_000
        for number in 0..<count {
            index.subscribe(token: "token-\(number)", to: "PUSH_RC")
            if number % 10 == 0 { index.subscribe(token: "token-\(number)", to: "beta") }
        }
        #expect(index.tokens(forTopic: "PUSH_RC").count == count)
        #expect(index.tokens(forCondition: try condition("'PUSH_RC' in topics")).count == count)
        let beta = try condition("'PUSH_RC' in topics && 'beta' in topics")
        #expect(index.tokens(forCondition: beta).count == count / 10)
        #expect(index.tokens(forCondition: try condition("'PUSH_RC' in topics && !('beta' in topics)")).count
            == count - count / 10)
    }

    @Test("a condition built in code with more than five topics still fans out")
    func manyTopicsInCode() {
        var index = FCMTopicIndex()
        let names = (0..<70).map { "t\($0)" }
        for name in names { index.subscribe(token: "device-\(name)", to: name) }
        let expression = names.dropFirst().reduce(FCMTopicCondition.Expression.topic(names[0])) { .or($0, .topic($1)) }
        let condition = FCMTopicCondition(expression: expression)
        #expect(condition.truthTable.isEmpty)
        #expect(index.tokens(forCondition: condition).count == 70)
    }
}
