import CloudFunctions
import FirebaseHTTP
import Foundation

/// A Parse Server reached over its REST API with the master key, and the key it signs its
/// webhooks with: where ``ParseSync`` mirrors the database's changes to.
///
/// ```swift
/// let parse = ParseServer(
///     url: URL(string: "https://parse.example.com/parse")!,
///     applicationId: "myApp", masterKey: masterKey, webhookKey: webhookKey)
/// ```
public struct ParseServer: Sendable {
    /// Where the Parse API is mounted, such as `https://parse.example.com/parse`.
    public var url: URL
    /// The application id (`X-Parse-Application-Id`).
    public var applicationId: String
    /// The master key (`X-Parse-Master-Key`): the sync writes whatever the class-level
    /// permissions say.
    public var masterKey: String
    /// The server's `webhookKey`, which it sends in `X-Parse-Webhook-Key` with every webhook;
    /// `nil` accepts webhooks from anyone who knows the function's URL.
    public var webhookKey: String?
    /// How long one REST call may take.
    public var timeout: Duration

    /// Describes a server.
    public init(url: URL, applicationId: String, masterKey: String, webhookKey: String?, timeout: Duration = .seconds(30)) {
        self.url = url
        self.applicationId = applicationId
        self.masterKey = masterKey
        self.webhookKey = webhookKey
        self.timeout = timeout
    }

    /// The server named by `PARSE_SERVER_URL`, `PARSE_APPLICATION_ID`, `PARSE_MASTER_KEY` and
    /// (optionally) `PARSE_WEBHOOK_KEY`; `nil` when one of the first three is missing.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let url = environment["PARSE_SERVER_URL"].flatMap(URL.init(string:)),
            let applicationId = environment["PARSE_APPLICATION_ID"], let masterKey = environment["PARSE_MASTER_KEY"]
        else { return nil }
        self.init(url: url, applicationId: applicationId, masterKey: masterKey,
            webhookKey: environment["PARSE_WEBHOOK_KEY"])
    }

    /// Sends one REST call with the master key and returns Parse's JSON answer.
    ///
    /// - Parameters:
    ///   - context: sent as `X-Parse-Cloud-Context`, which the server hands to the class's
    ///     triggers (and webhooks) as `request.context`.
    /// - Throws: ``ParseError`` for an answer outside 2xx; the transport's error when the
    ///   server cannot be reached.
    @discardableResult
    func send(_ method: String, _ path: String, body: JSONValue? = nil, context: JSONValue? = nil) async throws -> JSONValue {
        var headers = [
            ("X-Parse-Application-Id", applicationId),
            ("X-Parse-Master-Key", masterKey),
        ]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        if let context { headers.append(("X-Parse-Cloud-Context", context.serialized())) }
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let target = base + path
        guard let address = URL(string: target) else { throw ParseError(status: 0, code: nil, message: "malformed URL \(target)") }
        let response = try await HTTPExchange.send(method, address, headers: headers, body: body?.serializedData(),
            timeout: timeout)
        let answer = (try? JSONValue(parsing: response.body)) ?? .null
        guard (200..<300).contains(response.status) else {
            let message = answer["error"]?.stringValue ?? String(decoding: response.body.prefix(300), as: UTF8.self)
            throw ParseError(status: response.status, code: answer["code"]?.numberValue.flatMap { Int(exactly: $0) }, message: message)
        }
        return answer
    }
}

/// Parse Server refused a REST call: the HTTP status, Parse's error code and its message.
public struct ParseError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// Parse's error code (`101` object not found, `137` duplicate value, …), when it sent one.
    public var code: Int?
    /// Parse's message.
    public var message: String

    /// Whether trying again later may succeed: the server was unavailable, overloaded or
    /// refused the keys (which a redeploy with the right ones fixes); a refusal of the data
    /// itself will not change.
    public var isTransient: Bool { status >= 500 || status == 429 || status == 401 || status == 403 || status == 408 }

    /// Parse's `OBJECT_NOT_FOUND`.
    static let objectNotFound = 101
    /// Parse's `DUPLICATE_VALUE`, also the answer to a create with an `objectId` that exists.
    static let duplicateValue = 137

    public var description: String {
        "Parse answered HTTP \(status)" + (code.map { " (code \($0))" } ?? "") + ": \(message)"
    }
}
