import CloudFunctions
import Foundation

/// `context.messaging` for a functions binary: `POST {base}/v1/projects/{project}/messages:send`,
/// of FCM (`https://fcm.googleapis.com`, ``productionBaseURL``) or of an emulator.
public struct HTTPMessagingClient: MessagingClient, AdminHTTPClient {
    /// FCM's HTTP v1 API.
    public static let productionBaseURL = URL(string: "https://fcm.googleapis.com")!

    let http: AdminHTTP

    /// Creates a client of `baseURL` acting as `credentials`.
    public init(baseURL: URL, credentials: any AdminCredentials) {
        http = AdminHTTP(baseURL: baseURL, credentials: credentials)
    }

    public func send(_ message: Message, validateOnly: Bool) async throws -> String {
        let project = try await http.credentials.projectID()
        let body: JSONValue = ["message": try JSONValue(encoding: message), "validateOnly": .bool(validateOnly)]
        let answer = try await http.send("POST", "/v1/projects/\(project)/messages:send", json: body).json()
        guard let name = answer["name"]?.stringValue else {
            throw AdminHTTPError(status: 200, message: "the answer has no message name: \(answer.serialized())")
        }
        return name
    }
}
