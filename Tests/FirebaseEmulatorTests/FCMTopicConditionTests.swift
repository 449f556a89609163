import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("FCM topic conditions")
struct FCMTopicConditionTests {
    private func parse(_ text: String, _ grouping: FCMTopicCondition.Grouping = .leftToRight) throws
        -> FCMTopicCondition
    {
        try FCMTopicCondition(parsing: text, grouping: grouping)
    }

    private func failure(_ text: String) -> ServiceError? {
        FCMTestFixtures.error { () throws(ServiceError) in _ = try FCMTopicCondition(parsing: text) }
    }

    @Test("the documented example parses and evaluates")
    func documentedExample() throws {
        let condition = try parse("'A' in topics && ('B' in topics || 'C' in topics)")
        #expect(condition.topics == ["A", "B", "C"])
        #expect(condition.expression == .and(.topic("A"), .or(.topic("B"), .topic("C"))))
        #expect(condition.evaluate(subscribedTo: ["A", "B"]))
        #expect(condition.evaluate(subscribedTo: ["A", "C", "Z"]))
        #expect(!condition.evaluate(subscribedTo: ["A"]))
        #expect(!condition.evaluate(subscribedTo: ["B", "C"]))
    }

    @Test("double quotes and free spacing are accepted")
    func quotesAndSpacing() throws {
        let condition = try parse("  \"TopicA\"in topics||(  'TopicB' in   topics )  ")
        #expect(condition.expression == .or(.topic("TopicA"), .topic("TopicB")))
    }

    @Test("without parentheses operators group left to right by default")
    func leftToRight() throws {
        let condition = try parse("'A' in topics || 'B' in topics && 'C' in topics")
        #expect(condition.expression == .and(.or(.topic("A"), .topic("B")), .topic("C")))
        #expect(!condition.evaluate(subscribedTo: ["A"]))
        let conventional = try parse("'A' in topics || 'B' in topics && 'C' in topics", .andBeforeOr)
        #expect(conventional.expression == .or(.topic("A"), .and(.topic("B"), .topic("C"))))
        #expect(conventional.evaluate(subscribedTo: ["A"]))
    }

    @Test("negation is supported as an extension")
    func negation() throws {
        let condition = try parse("'A' in topics && !('B' in topics)")
        #expect(condition.evaluate(subscribedTo: ["A"]))
        #expect(!condition.evaluate(subscribedTo: ["A", "B"]))
        #expect(try parse("!!'A' in topics").evaluate(subscribedTo: ["A"]))
    }

    @Test("the truth table lists every combination of the topics")
    func truthTable() throws {
        let condition = try parse("'A' in topics && !('B' in topics)")
        #expect(condition.truthTable == [false, true, false, false])
    }

    @Test("five topics are allowed, a sixth is not")
    func topicLimit() throws {
        let five = (1...5).map { "'t\($0)' in topics" }.joined(separator: " || ")
        #expect(try parse(five).topics.count == 5)
        let error = try #require(failure(five + " || 't6' in topics"))
        #expect(error.message == "Invalid condition expression provided: more than 5 topics at position 90.")
    }

    @Test("syntax errors name the position", arguments: [
        ("", "expected a topic, '(' or '!' at position 0"),
        ("'A' in topics &&", "expected a topic, '(' or '!' at position 16"),
        ("'A' in topic", "expected 'topics' at position 7"),
        ("'A' on topics", "expected 'in' at position 4"),
        ("'A in topics", "unterminated topic name at position 0"),
        ("'A B' in topics", "invalid topic name \"A B\" at position 0"),
        ("'' in topics", "invalid topic name \"\" at position 0"),
        ("'A' in topics & 'B' in topics", "expected '&&' at position 14"),
        ("('A' in topics", "expected ')' at position 14"),
        ("'A' in topics)", "unexpected ')' at position 13"),
        ("A in topics", "expected a topic, '(' or '!' at position 0"),
    ])
    func syntaxErrors(text: String, problem: String) throws {
        let error = try #require(failure(text))
        #expect(error.message == "Invalid condition expression provided: \(problem).")
        #expect(error.status == "INVALID_ARGUMENT")
        #expect(FCMTestFixtures.fcmErrorCode(error) == "INVALID_ARGUMENT")
    }

    @Test("deep nesting is rejected instead of exhausting the stack")
    func deepNesting() throws {
        let text = String(repeating: "(", count: 10_000) + "'A' in topics" + String(repeating: ")", count: 10_000)
        #expect(failure(text)?.message.contains("nesting too deep") == true)
        let nots = String(repeating: "!", count: 10_000) + "'A' in topics"
        #expect(failure(nots)?.message.contains("nesting too deep") == true)
    }
}
