import CloudFunctions
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `context.messaging` for a functions binary talking to an emulator (or any FCM
/// HTTP v1-compatible endpoint) over HTTP: `POST {base}/v1/projects/{project}/messages:send`.
public struct HTTPMessagingClient: MessagingClient {
    /// The emulator's base URL, e.g. `http://127.0.0.1:4400`.
    public let baseURL: URL
    /// The project in the send path.
    public let project: String
    /// The bearer token sent; the emulator's admin credential is `owner`.
    public let bearerToken: String

    /// Creates a client.
    public init(baseURL: URL, project: String, bearerToken: String = "owner") {
        self.baseURL = baseURL
        self.project = project
        self.bearerToken = bearerToken
    }

    public func send(_ message: Message, validateOnly: Bool) async throws -> String {
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/projects/\(project)/messages:send"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(bearerToken)", forHTTPHeaderField: "Authorization")
        let body: JSONValue = ["message": try JSONValue(encoding: message), "validateOnly": .bool(validateOnly)]
        request.httpBody = body.serializedData()
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = try? JSONValue(parsing: data)
        guard (200..<300).contains(status), let name = json?["name"]?.stringValue else {
            throw AdminHTTPError(
                status: status,
                message: json?["error"]?["message"]?.stringValue ?? String(decoding: data, as: UTF8.self)
            )
        }
        return name
    }
}

/// An Admin API call over HTTP failed: the status and the service's message.
public struct AdminHTTPError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The error message the service answered with.
    public var message: String

    public var description: String { "HTTP \(status): \(message)" }
}
