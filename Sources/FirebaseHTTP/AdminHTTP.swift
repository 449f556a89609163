import CloudFunctions
import Foundation

/// Admin calls to an emulator or to Google's services: what the Admin clients of a functions
/// binary and the `functions` CLI send.
///
/// Every request carries `Authorization: Bearer` with the credentials' token (and
/// `x-goog-user-project` when the token names a quota project). A request answered 401 is sent
/// once more with a renewed token, when the credentials give a different one.
public struct AdminHTTP: Sendable {
    /// An answer with a 2xx status.
    public struct Answer: Sendable {
        /// The headers, with lower-cased names.
        public var headers: [String: String]
        /// The body.
        public var body: Data

        /// The body as JSON; `null` when empty.
        public func json() throws -> JSONValue { body.isEmpty ? .null : try JSONValue(parsing: body) }
    }

    /// The base URL, e.g. `http://127.0.0.1:4400` or `https://fcm.googleapis.com`.
    public let baseURL: URL
    /// Who the calls act as.
    public let credentials: any AdminCredentials
    /// Whether answers may come gzipped (`Accept-Encoding: gzip`), and are then inflated.
    public let acceptsGzip: Bool
    /// `baseURL` without query, fragment or trailing slash: every request's URL begins with it.
    private let prefix: String

    /// Creates a client of `baseURL` acting as `credentials`.
    public init(baseURL: URL, credentials: any AdminCredentials, acceptsGzip: Bool = false) {
        self.baseURL = baseURL
        self.credentials = credentials
        self.acceptsGzip = acceptsGzip
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        var prefix = components?.string ?? baseURL.absoluteString
        while prefix.hasSuffix("/") { prefix.removeLast() }
        self.prefix = prefix
    }

    /// Creates a client of an emulator at `baseURL`, sending a fixed token (the emulator's
    /// administrator is `owner`).
    public init(baseURL: URL, bearerToken: String = "owner") {
        self.init(baseURL: baseURL, credentials: FixedCredentials(project: nil, token: bearerToken))
    }

    /// Sends a request to `path` under the base URL; an answer outside 2xx throws
    /// ``AdminHTTPError`` with the service's message; no answer at all throws the transport's
    /// error, and credentials that cannot give a token throw their error.
    @discardableResult
    public func send(
        _ method: String,
        _ path: String,
        query: [URLQueryItem] = [],
        json: JSONValue? = nil,
        headers: [String: String] = [:],
        timeout: TimeInterval = 60
    ) async throws -> Answer {
        // Written out rather than through URLComponents: handlers make these calls per event.
        var text = prefix + path
        for (index, item) in query.enumerated() {
            text += (index == 0 ? "?" : "&") + Self.percentEncoded(item.name)
            if let value = item.value { text += "=" + Self.percentEncoded(value) }
        }
        guard let url = URL(string: text) else { throw AdminHTTPError(status: 0, message: "malformed URL for \(path)") }
        let body = json?.serializedData()
        var token = try await credentials.accessToken()
        var response = try await exchange(method, url, token: token, json: body, headers: headers, timeout: timeout)
        if response.status == 401 {
            // An expired or revoked token: one renewal, one more try.
            await credentials.refused(token)
            let renewed = try await credentials.accessToken()
            if renewed.value != token.value {
                token = renewed
                response = try await exchange(method, url, token: token, json: body, headers: headers, timeout: timeout)
            }
        }
        guard (200..<300).contains(response.status) else {
            let body = try? JSONValue(parsing: response.body)
            // Google APIs answer {"error": {"message"}}; the Realtime Database {"error": "..."}.
            let message = body?["error"]?["message"]?.stringValue ?? body?["error"]?.stringValue
                ?? String(decoding: response.body.prefix(500), as: UTF8.self)
            throw AdminHTTPError(status: response.status, message: message,
                answer: Answer(headers: response.headers, body: response.body))
        }
        return Answer(headers: response.headers, body: response.body)
    }

    private func exchange(
        _ method: String, _ url: URL, token: AccessToken, json: Data?, headers: [String: String], timeout: TimeInterval
    ) async throws -> HTTPExchange.Response {
        var fields = [("Authorization", "Bearer \(token.value)")]
        if let quotaProject = token.quotaProject { fields.append(("x-goog-user-project", quotaProject)) }
        if json != nil { fields.append(("Content-Type", "application/json")) }
        if acceptsGzip { fields.append(("Accept-Encoding", "gzip")) }
        fields += headers.map { ($0.key, $0.value) }
        return try await HTTPExchange.send(method, url, headers: fields, body: json,
            timeout: .milliseconds(Int64(timeout * 1000)), inflatesGzip: acceptsGzip)
    }
}

/// An Admin API call over HTTP failed: the status and the service's message.
public struct AdminHTTPError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The error message the service answered with.
    public var message: String
    /// The whole answer, when there was one.
    public var answer: AdminHTTP.Answer?

    /// Creates an error.
    public init(status: Int, message: String, answer: AdminHTTP.Answer? = nil) {
        self.status = status
        self.message = message
        self.answer = answer
    }

    public var description: String { "HTTP \(status): \(message)" }
}

extension AdminHTTP {
    /// The sub-delimiters, `:` and `@`: what a path segment may hold besides unreserved characters.
    public static let segmentCharacters: Set<UInt8> = Set("!$&'()*+,;=:@".utf8)

    /// `text` with every byte percent-encoded but the unreserved characters (letters, digits,
    /// `-._~`) and `kept`; as it is when nothing needs encoding.
    public static func percentEncoded(_ text: some StringProtocol, keeping kept: Set<UInt8> = []) -> String {
        func isKept(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                true
            default:
                kept.contains(byte)
            }
        }
        if text.utf8.allSatisfy(isKept) { return String(text) }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isKept(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
