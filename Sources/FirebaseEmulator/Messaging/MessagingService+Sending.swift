import CloudEvents
import CloudFunctions
import Foundation
import GRDB
import Synchronization

extension MessagingService {
    /// Sends (or only validates) a message.
    ///
    /// - Throws: `INVALID_ARGUMENT` (with the FCM error details) for an invalid message, and
    ///   `UNREGISTERED` (404) for a token that is not registered.
    @discardableResult
    public func send(_ request: FCMSendRequest) async throws -> SendResult {
        let target = try validation.validate(request.message)
        var generator = SplitMixRandom()
        let now = clock.now
        let name = FCMMessageID.generate(projectID: project, at: now, using: &generator).name
        if request.validateOnly {
            // A dry run checks the token as a send would: the usual way to find stale tokens.
            if case .token(let token) = target, !isRegistered(token) {
                throw FCMErrorCode.unregistered.serviceError("Requested entity was not found.")
            }
            return SendResult(name: name, recipients: 0)
        }
        // The store's writer runs one write at a time: deciding under it which devices get the
        // message, and applying the new sequence number and telling listeners once it has
        // committed (still on the writer, before any later write), keeps the message order and
        // the subscription history consistent. The state lock is only held for moments, never
        // across the SQLite write.
        let (count, _) = try await store.write { [self]  transaction in
            let (sequence, recipients, topic, count) = try state.withLock { state in
                let recipients: [String]
                var topic: String?
                switch target {
                case .token(let token):
                    guard state.devices.contains(token) else {
                        throw FCMErrorCode.unregistered.serviceError("Requested entity was not found.")
                    }
                    recipients = [token]
                case .topic(let name):
                    topic = name
                    recipients = []
                case .condition(let text):
                    let condition = try FCMTopicCondition(parsing: text, grouping: validation.conditionGrouping)
                    var matched = state.index.tokens(forCondition: condition)
                    // A condition that holds without any topic (with a `!`) reaches the devices
                    // subscribed to nothing too, as FCM documents; the index knows only subscribers.
                    if condition.evaluate(subscribedTo: []) {
                        for token in state.devices where state.index.topics(forToken: token).isEmpty { matched.insert(token) }
                    }
                    recipients = Array(matched)
                }
                let count = topic.map { state.index.subscriberCount(forTopic: $0) } ?? recipients.count
                return (state.nextSequence, recipients, topic, count)
            }
            let inbox = InboxMessage(name: name, message: request.message, target: target, sendTime: now)
            try transaction.db.execute(
                sql: "INSERT INTO fcm_messages (seq, name, topic, message, send_time) VALUES (?, ?, ?, ?, ?)",
                arguments: [sequence, name, topic, try JSONValue(encoding: inbox).serialized(),
                    now.timeIntervalSince1970]
            )
            let statement = try transaction.db.makeStatement(sql: "INSERT INTO fcm_inbox (token, seq) VALUES (?, ?)")
            for token in recipients { try statement.execute(arguments: [token, sequence]) }
            transaction.afterCommit { [self] in
                state.withLock { state in
                    state.nextSequence = sequence + 1
                    let listeners = topic.map { topic in
                        state.listeners.filter { state.index.topics(forToken: $0.key).contains(topic) }
                            .flatMap(\.value.values)
                    } ?? recipients.flatMap { state.listeners[$0]?.values.map { $0 } ?? [] }
                    for listener in listeners { listener.yield(inbox) }
                }
            }
            return count
        }
        return SendResult(name: name, recipients: count)
    }

    /// Sends (or only validates) a message built in code, checked by the same wire rules as one
    /// sent over HTTP (enum names, durations, number ranges and object shapes the typed fields
    /// cannot express).
    @discardableResult
    public func send(_ message: Message, validateOnly: Bool = false) async throws -> SendResult {
        _ = try FCMWireNormalizer.normalize(JSONValue(encoding: message), as: .message, path: "message")
        return try await send(FCMSendRequest(message: message, validateOnly: validateOnly))
    }

    /// Every message a device has received, oldest first.
    ///
    /// - Throws: `NOT_FOUND` for a token that is not registered.
    public func inbox(token: String) throws -> [InboxMessage] {
        guard isRegistered(token) else {
            throw ServiceError(.notFound, "no device is registered with token \(token)")
        }
        return try store.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT m.message FROM fcm_messages m
                    WHERE m.seq IN (SELECT seq FROM fcm_inbox WHERE token = ?1)
                       OR (m.topic IS NOT NULL AND EXISTS (
                            SELECT 1 FROM fcm_subscriptions s
                            WHERE s.token = ?1 AND s.topic = m.topic AND s.from_seq <= m.seq
                              AND (s.to_seq IS NULL OR m.seq < s.to_seq)))
                    ORDER BY m.seq
                    """,
                arguments: [token]
            ).compactMap { row in
                // A row that does not decode (say, from a hand-edited import) is left out, not
                // allowed to hide the rest of the inbox.
                try? JSONValue(parsing: row).decode(as: InboxMessage.self)
            }
        }
    }

    /// Messages as they arrive at a device, for push-style listeners.
    public func inboxUpdates(token: String) -> AsyncStream<InboxMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: InboxMessage.self)
        let id = UUID()
        state.withLock { $0.listeners[token, default: [:]][id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.listeners[token]?[id] = nil
                if state.listeners[token]?.isEmpty == true { state.listeners[token] = nil }
            }
        }
        return stream
    }
}

extension InboxMessage {
    /// `target` is the message's validated target (a topic without `/topics/`).
    init(name: String, message: Message, target: Message.Target, sendTime: Date) {
        var topic: String?
        var condition: String?
        switch target {
        case .topic(let name): topic = name
        case .condition(let text): condition = text
        case .token: break
        }
        self.init(
            name: name, data: message.data, notification: message.notification, apns: message.apns,
            android: message.android, topic: topic, condition: condition,
            sendTime: RFC3339Timestamp.string(from: sendTime)
        )
    }
}
