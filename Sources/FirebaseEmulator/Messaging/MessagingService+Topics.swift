import CloudFunctions
import Foundation
import GRDB
import Synchronization

extension MessagingService {
    static let schema = StoreSchema(name: "messaging-v1") { db in
        try db.execute(sql: """
            CREATE TABLE fcm_devices (token TEXT PRIMARY KEY, platform TEXT, created_at REAL NOT NULL);
            CREATE TABLE fcm_subscriptions (
                token TEXT NOT NULL, topic TEXT NOT NULL, from_seq INTEGER NOT NULL, to_seq INTEGER
            );
            CREATE INDEX fcm_subscriptions_token ON fcm_subscriptions(token, topic);
            CREATE TABLE fcm_messages (
                seq INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, topic TEXT, message TEXT NOT NULL,
                send_time REAL NOT NULL
            );
            CREATE INDEX fcm_messages_topic ON fcm_messages(topic, seq);
            CREATE TABLE fcm_inbox (token TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (token, seq));
            """)
    }

    /// Subscribes devices to a topic (the IID `batchAdd` and per-token forms).
    ///
    /// - Returns: one outcome per token, in order: malformed tokens fail with
    ///   `INVALID_ARGUMENT`, unregistered ones with `NOT_FOUND`.
    /// - Throws: `INVALID_ARGUMENT` for a malformed topic name or more than 1000 tokens.
    public func subscribe(tokens: [String], to topic: String) async throws -> [FCMTopicOutcome] {
        try await changeSubscriptions(tokens: tokens, topic: topic, subscribe: true)
    }

    /// Unsubscribes devices from a topic (the IID `batchRemove` and per-token forms).
    public func unsubscribe(tokens: [String], from topic: String) async throws -> [FCMTopicOutcome] {
        try await changeSubscriptions(tokens: tokens, topic: topic, subscribe: false)
    }

    private func changeSubscriptions(tokens: [String], topic rawTopic: String, subscribe: Bool) async throws
        -> [FCMTopicOutcome]
    {
        let topic = try FCMTopicName.validated(FCMTopicName.stripPrefix(rawTopic), field: "to")
        guard tokens.count <= 1000 else {
            throw ServiceError(.invalidArgument, "at most 1000 registration tokens may be given at once")
        }
        // Decided inside the store's write (one write at a time) and applied once it commits,
        // with the state lock held only for the deciding and the applying, not across the write.
        let (outcomes, _) = try await store.write { [self]  transaction in
            let (outcomes, changed, sequence) = state.withLock { state in
                var outcomes: [FCMTopicOutcome] = []
                var changed: [String] = []
                for token in tokens {
                    if !FCMRegistrationToken.isWellFormed(token) {
                        outcomes.append(.failure(.invalidArgument))
                        continue
                    }
                    guard state.devices.contains(token) else {
                        outcomes.append(.failure(.notFound))
                        continue
                    }
                    let topics = state.index.topics(forToken: token)
                    if subscribe, !topics.contains(topic), topics.count >= FCMTopicIndex.maxTopicsPerToken {
                        outcomes.append(.failure(.tooManyTopics))
                        continue
                    }
                    outcomes.append(.success)
                    if topics.contains(topic) != subscribe, !changed.contains(token) { changed.append(token) }
                }
                return (outcomes, changed, state.nextSequence)
            }
            let sql = subscribe
                ? "INSERT INTO fcm_subscriptions (token, topic, from_seq) VALUES (?, ?, ?)"
                : "UPDATE fcm_subscriptions SET to_seq = ? WHERE token = ? AND topic = ? AND to_seq IS NULL"
            let statement = try transaction.db.makeStatement(sql: sql)
            for token in changed {
                try statement.execute(arguments: subscribe ? [token, topic, sequence] : [sequence, token, topic])
            }
            // Applied to the index in place (copying it would cost a pass over every subscription),
            // once committed, on the store's writer, before any later write.
            transaction.afterCommit { [self] in
                state.withLock { state in
                    for token in changed {
                        if subscribe {
                            _ = state.index.subscribe(token: token, to: topic)
                        } else {
                            _ = state.index.unsubscribe(token: token, from: topic)
                        }
                    }
                }
            }
            return outcomes
        }
        return outcomes
    }
}
