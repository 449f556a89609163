import CloudEvents
import CloudFunctions
import FirebaseEmulator
import FirebaseHTTP
import Foundation
import Logging
import ProcessSupport

/// Takes one topic's messages from the Pub/Sub emulator to the outbox: a pull subscription of
/// its own (`swift-cloud-functions-{topic}`, made with the topic when missing, again after the
/// Pub/Sub emulator restarts), long pulls, each batch committed as events, and only then
/// acknowledged. A message not acknowledged (this process ended first) comes again after its
/// deadline and is recognised: its event is already in the outbox.
struct PubSubPuller: Sendable {
    let topic: String
    let project: String
    let pubsub: GoogleEmulator
    let emulator: Emulator
    let logger: Logger

    var subscription: String { "swift-cloud-functions-\(topic)" }

    /// Pulls until cancelled, from the subscription made at `subscribed` (made again when the
    /// Pub/Sub emulator moves or forgets it).
    func run(subscribedAt subscribed: HostPort?) async {
        var failures = 0
        var subscribed = subscribed
        while !Task.isCancelled {
            do {
                let address = try await pubsub.address()
                if subscribed != address {
                    try await subscribe(at: address)
                    subscribed = address
                }
                let messages = try await pull(at: address)
                if !messages.isEmpty {
                    let events = messages.map { event(for: $0.message) }.filter(emulator.wants)
                    try await emulator.ingest(events)
                    try await acknowledge(messages.map(\.ackId), at: address)
                }
                failures = 0
            } catch is CancellationError {
                return
            } catch let error as PubSubError where error.status == 404 && failures == 0 {
                // The Pub/Sub emulator restarted and lost the subscription: make it again (once
                // at once; a subscription that stays missing backs off as any failure does).
                subscribed = nil
                failures += 1
            } catch {
                subscribed = nil
                if Task.isCancelled { return }
                failures += 1
                if failures == 3 { logger.warning("Pub/Sub messages of topic \(topic) are not coming: \(error)") }
                try? await Task.sleep(for: .milliseconds(200 * min(failures, 25)))
            }
        }
    }

    /// The event of a message. Its id is the message id with the publish time, as the Pub/Sub
    /// emulator numbers messages from 1 again each time it starts.
    func event(for message: PubSubMessage) -> CloudEvent {
        var event = CloudEvent.pubSubMessagePublished(message, project: project, topic: topic,
            subscription: "projects/\(project)/subscriptions/\(subscription)")
        event.id = "\(message.messageId)-\(Int64((message.publishTime.timeIntervalSince1970 * 1000).rounded()))"
        return event
    }

    /// Makes the topic and the subscription, unless they exist.
    func subscribe(at address: HostPort) async throws {
        let topicName = "projects/\(project)/topics/\(topic)"
        for (path, body) in [("topics/\(topic)", JSONValue.object([:])),
            ("subscriptions/\(subscription)", ["topic": .string(topicName), "ackDeadlineSeconds": 60])]
        {
            let answer = try await send("PUT", path, body, at: address)
            guard (200..<300).contains(answer.status) || answer.status == 409 else {
                throw PubSubError(status: answer.status, body: answer.body)
            }
        }
    }

    /// Waits for messages (the Pub/Sub emulator answers a pull when some arrive, or after about
    /// 90 seconds with none).
    private func pull(at address: HostPort) async throws -> [(ackId: String, message: PubSubMessage)] {
        let answer = try await send("POST", "subscriptions/\(subscription):pull", ["maxMessages": 1000], at: address,
            timeout: .seconds(120))
        guard answer.status == 200 else { throw PubSubError(status: answer.status, body: answer.body) }
        struct Pulled: Decodable {
            struct Received: Decodable {
                var ackId: String
                var message: PubSubMessage
            }
            var receivedMessages: [Received]?
        }
        return try JSONDecoder().decode(Pulled.self, from: answer.body).receivedMessages?.map { ($0.ackId, $0.message) } ?? []
    }

    private func acknowledge(_ ackIds: [String], at address: HostPort) async throws {
        let answer = try await send("POST", "subscriptions/\(subscription):acknowledge",
            ["ackIds": .array(ackIds.map(JSONValue.string))], at: address)
        guard answer.status == 200 else { throw PubSubError(status: answer.status, body: answer.body) }
    }

    private func send(
        _ method: String, _ path: String, _ body: JSONValue, at address: HostPort, timeout: Duration = .seconds(10)
    ) async throws -> HTTPExchange.Response {
        try await HTTPExchange.send(method, address.url(path: "/v1/projects/\(project)/\(path)"),
            headers: [("Content-Type", "application/json")], body: body.serializedData(), timeout: timeout)
    }
}

/// An answer of the Pub/Sub emulator outside 2xx.
struct PubSubError: Error, CustomStringConvertible {
    var status: Int
    var body: Data
    var description: String { "HTTP \(status): \(String(decoding: body, as: UTF8.self))" }
}
