import CloudFunctions
import Foundation

/// `context.admin.pubsub` for a functions binary: the Pub/Sub REST API's publish
/// (`{base}/v1/projects/{project}/topics/{topic}:publish`), of Google or of the Pub/Sub emulator.
public struct HTTPPubSubClient: PubSubClient {
    /// Google's Pub/Sub API.
    public static let productionBaseURL = URL(string: "https://pubsub.googleapis.com")!

    let address: GoogleServiceAddress
    let credentials: any AdminCredentials

    /// A client of `baseURL` acting as `credentials`.
    public init(baseURL: URL, credentials: any AdminCredentials) {
        address = GoogleServiceAddress(baseURL)
        self.credentials = credentials
    }

    /// A client of the Pub/Sub emulator this repository's emulator at `hub` runs.
    public init(emulatorHub hub: URL, project: String) {
        address = GoogleServiceAddress(hub: hub, service: "pubsub")
        credentials = FixedCredentials(project: project)
    }

    /// A client of the emulator that `find` gives the address of (asked when first used, and
    /// again after a call could not connect): an in-process emulator's own.
    package init(foundBy find: @escaping @Sendable () async throws -> URL, project: String) {
        address = GoogleServiceAddress(foundBy: find)
        credentials = FixedCredentials(project: project)
    }

    public func publish(_ messages: [PubSubOutgoingMessage], to topic: String) async throws -> [String] {
        let body: JSONValue = ["messages": .array(messages.map { message in
            var json: [String: JSONValue] = ["data": .string(message.data.base64EncodedString())]
            if !message.attributes.isEmpty { json["attributes"] = .object(message.attributes.mapValues(JSONValue.string)) }
            if let key = message.orderingKey { json["orderingKey"] = .string(key) }
            return .object(json)
        })]
        let path = "/v1/projects/\(try await credentials.projectID())/topics/"
            + AdminHTTP.percentEncoded(topic, keeping: AdminHTTP.segmentCharacters) + ":publish"
        let answer = try await address.withURL { base in
            try await AdminHTTP(baseURL: base, credentials: credentials).send("POST", path, json: body)
        }
        let ids = try answer.json()["messageIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard ids.count == messages.count else {
            throw AdminHTTPError(status: 200, message: "Pub/Sub answered \(ids.count) message ids for \(messages.count) messages",
                answer: answer)
        }
        return ids
    }
}
