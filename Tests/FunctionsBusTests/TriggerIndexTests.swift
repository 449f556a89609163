import CloudEvents
import CloudFunctions
import Testing

@testable import FunctionsBus

@Suite("Trigger index: which functions an event goes to")
struct TriggerIndexTests {
    static let type = "google.firebase.database.ref.v1.written"

    static func trigger(
        _ type: String = type, filters: [String: String] = [:], patterns: [String: String]
    ) throws -> EventTrigger {
        EventTrigger(eventType: type, filters: filters, pathPatterns: try patterns.mapValues { try PathPattern($0) })
    }

    @Test("finds exactly the functions whose triggers match, in registration order")
    func agreesWithTriggers() throws {
        let triggers = [
            try Self.trigger(patterns: ["ref": "users/{uid}"]),
            try Self.trigger(patterns: ["ref": "users/{uid}"]),  // a second function on the same trigger
            try Self.trigger(patterns: ["ref": "users/{uid}/posts/{post}"]),
            try Self.trigger(patterns: ["ref": "{any}/{uid}"]),
            try Self.trigger(patterns: ["ref": "users/{path=**}"]),
            try Self.trigger(patterns: ["ref": "**"]),
            try Self.trigger(filters: ["instance": "other"], patterns: ["ref": "users/{uid}"]),
            try Self.trigger(filters: ["instance": "demo"], patterns: ["ref": "scores/{id}"]),
            try Self.trigger(patterns: ["ref": "scores/{id}", "instance": "*"]),
            try Self.trigger(patterns: ["ref": "scores/{id}", "instance": "{instance}"]),
            try Self.trigger(patterns: ["instance": "demo"]),
            EventTrigger(eventType: Self.type),
            EventTrigger(eventType: Self.type, filters: ["instance": "demo"]),
            EventTrigger(eventType: Self.type, filters: ["ref": "users/a"]),
            try Self.trigger(patterns: ["subject": "refs/users/{uid}"]),
            try Self.trigger(filters: ["subject": "refs/scores/1"], patterns: ["ref": "scores/{id}"]),
            try Self.trigger("google.firebase.database.ref.v1.created", patterns: ["ref": "users/{uid}"]),
        ]
        // All of them (a type with many triggers is looked up by the ref's first segment), and the
        // first five (few enough that each is simply tested).
        #expect(try Self.checkAgainstTriggers(triggers) > 20)
        #expect(try Self.checkAgainstTriggers(Array(triggers.prefix(5))) > 10)
    }

    @Test("finds the functions of each event type, with few types and with more than it compares one by one")
    func manyEventTypes() throws {
        for typeCount in [1, TriggerIndex.linearTypeLimit, TriggerIndex.linearTypeLimit + 1, 20] {
            let types = (0..<typeCount).map { "com.example.type\($0)" }
            // Each type twice (two functions), and the first type once more on a path.
            var triggers = types.flatMap { [EventTrigger(eventType: $0), EventTrigger(eventType: $0)] }
            triggers.append(try Self.trigger(types[0], patterns: ["ref": "users/{uid}"]))
            let index = TriggerIndex(triggers)
            for (position, type) in types.enumerated() {
                let event = CloudEvent(id: "1", source: "/s", type: type, extensions: ["ref": "users/a"])
                let expected = [2 * position, 2 * position + 1] + (position == 0 ? [triggers.count - 1] : [])
                #expect(index.matches(event) == expected, "\(typeCount) types, \(type)")
            }
            for unknown in ["com.example.type", "com.example.type\(typeCount)", ""] {
                #expect(index.matches(CloudEvent(id: "1", source: "/s", type: unknown)).isEmpty, "\(typeCount) types, \(unknown)")
            }
        }
    }

    /// Checks the index's answer against every trigger's own test for many events; returns how
    /// many of those events some function gets.
    static func checkAgainstTriggers(_ triggers: [EventTrigger]) throws -> Int {
        let index = TriggerIndex(triggers)
        let refs = [
            "users/a", "/users/a/", "users//a", "users/a/posts/p", "users", "scores/1", "scores/1/x", "teams/a",
            "", "users/a%20b", "Users/a",
        ]
        var checked = 0
        for type in [Self.type, "google.firebase.database.ref.v1.created", "other"] {
            for ref in refs + [nil] {
                for instance in ["demo", "other", nil] {
                    var extensions: [String: CloudEventAttributeValue] = [:]
                    if let ref { extensions["ref"] = .string(ref) }
                    if let instance { extensions["instance"] = .string(instance) }
                    let subject = ref.map { "refs/" + $0 }
                    let event = CloudEvent(id: "1", source: "/s", type: type, subject: subject, extensions: extensions)
                    let expected = triggers.indices.filter { triggers[$0].matches(event) }
                    #expect(index.matches(event) == expected, "type \(type), ref \(ref ?? "none"), instance \(instance ?? "none")")
                    checked += expected.isEmpty ? 0 : 1
                }
            }
        }
        return checked
    }
}
