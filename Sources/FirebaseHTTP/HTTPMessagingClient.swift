import CloudFunctions
import Foundation

/// `context.messaging` for a functions binary talking to an emulator (or any FCM
/// HTTP v1-compatible endpoint) over HTTP: `POST {base}/v1/projects/{project}/messages:send`.
public struct HTTPMessagingClient: MessagingClient {
    let http: AdminHTTP
    /// The project in the send path.
    public let project: String

    /// Creates a client; `baseURL` is e.g. `http://127.0.0.1:4400`.
    public init(baseURL: URL, project: String, bearerToken: String = "owner") {
        http = AdminHTTP(baseURL: baseURL, bearerToken: bearerToken)
        self.project = project
    }

    public func send(_ message: Message, validateOnly: Bool) async throws -> String {
        let body: JSONValue = ["message": try JSONValue(encoding: message), "validateOnly": .bool(validateOnly)]
        let answer = try await http.send("POST", "/v1/projects/\(project)/messages:send", json: body).json()
        guard let name = answer["name"]?.stringValue else {
            throw AdminHTTPError(status: 200, message: "the answer has no message name: \(answer.serialized())")
        }
        return name
    }
}
