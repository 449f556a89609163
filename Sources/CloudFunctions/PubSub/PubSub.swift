import CloudEvents

/// Pub/Sub triggers: functions that run on each message published to a topic.
///
/// ```swift
/// functions["onScoreSubmitted"] = PubSub.topic("score-submissions").onMessagePublished { message, context in
///     let score = try message.json(as: ScoreSubmission.self)
/// }
/// ```
public enum PubSub {
    /// Triggers on the messages of a topic, by its short name.
    public static func topic(_ name: String) -> PubSubTopicTrigger {
        PubSubTopicTrigger(topic: name)
    }

    /// The CloudEvent `source` of a topic's events.
    public static func source(project: String, topic: String) -> String {
        "//pubsub.googleapis.com/projects/\(project)/topics/\(topic)"
    }
}

/// A Pub/Sub topic to trigger on; finish with ``onMessagePublished(_:)``.
///
/// Events are matched, as Eventarc's `topic` filter matches them, by the topic their source
/// names (`//pubsub.googleapis.com/projects/{project}/topics/{topic}`).
public struct PubSubTopicTrigger: Sendable {
    let topic: String

    /// Runs on each message published to the topic. Pub/Sub delivers at least once: a message
    /// delivered again keeps its ``PubSubMessage/messageId``.
    public func onMessagePublished(
        _ handler: @escaping @Sendable (PubSubMessage, EventContext) async throws -> Void
    ) -> CloudFunction {
        var problems: [String] = []
        if !Self.isValidName(topic) {
            problems.append("'\(topic)' is not a Pub/Sub topic name: use 3 to 255 letters, digits and -_.~+%, "
                + "starting with a letter, not 'goog'")
        }
        return CloudFunction(
            trigger: EventTrigger(eventType: FirebaseEventType.pubSubPublished, filters: ["topic": topic]),
            options: FunctionOptions(),
            problems: problems,
            handler: { event, context in
                try await handler(try EventPayloadError.decode(MessagePublishedData.self, from: event).message, context)
            }
        )
    }

    /// Whether `name` is a topic id Pub/Sub accepts.
    static func isValidName(_ name: String) -> Bool {
        guard (3...255).contains(name.count), let first = name.unicodeScalars.first,
            ("a"..."z").contains(first) || ("A"..."Z").contains(first),
            !name.lowercased().hasPrefix("goog")
        else { return false }
        return name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.~+%".unicodeScalars.contains($0)
        }
    }
}
