import CloudFunctions
import FirebaseHTTP
import Foundation

/// An OAuth 2 token endpoint (`https://oauth2.googleapis.com/token`, or a key file's
/// `token_uri`): a grant POSTed as a form, an access token back.
///
/// A grant answered 408, 429 or 5xx, or not answered at all, is sent again, three tries in all,
/// half a second and then a second apart (as google-auth does, with shorter waits: a function's
/// event is waiting).
package struct TokenEndpoint: Sendable {
    /// Google's token endpoint.
    package static let google = URL(string: "https://oauth2.googleapis.com/token")!

    /// Where grants go.
    package let url: URL

    package init(url: URL) {
        self.url = url
    }

    /// Sends `grant` (form fields) and returns the token, stamped to expire `expires_in` seconds
    /// after the request was sent.
    ///
    /// - Throws: a description of what went wrong (the endpoint's `error` and
    ///   `error_description`, or the transport's failure), with nothing of the grant in it.
    package func token(for grant: [(String, String)], quotaProject: String?, clock: any BusClock) async throws -> AccessToken {
        let form = grant.map { AdminHTTP.percentEncoded($0.0) + "=" + AdminHTTP.percentEncoded($0.1) }
            .joined(separator: "&")
        var delay = Duration.milliseconds(500)
        for attempt in 1...3 {
            let sent = clock.now
            let response: HTTPExchange.Response
            do {
                response = try await HTTPExchange.send("POST", url,
                    headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                    body: Data(form.utf8), timeout: .seconds(10))
            } catch {
                guard attempt < 3 else { throw TokenEndpointError("POST \(url.absoluteString): no answer (\(error))") }
                try await Task.sleep(for: delay)
                delay *= 2
                continue
            }
            if [408, 429].contains(response.status) || response.status >= 500, attempt < 3 {
                try await Task.sleep(for: delay)
                delay *= 2
                continue
            }
            return try Self.token(from: response, sentAt: sent, quotaProject: quotaProject, url: url)
        }
        throw TokenEndpointError("POST \(url.absoluteString): no answer")
    }

    /// The token of an answer (`access_token`, `expires_in` as a number or a string, `token_type`
    /// Bearer), or why there is none.
    package static func token(from response: HTTPExchange.Response, sentAt: Date, quotaProject: String?, url: URL)
        throws -> AccessToken
    {
        let body = try? JSONValue(parsing: response.body)
        guard (200..<300).contains(response.status) else {
            let error = body?["error"]?.stringValue ?? body?["error"]?["message"]?.stringValue
            let detail = body?["error_description"]?.stringValue
            let reason = [error, detail].compactMap { $0 }.joined(separator: ": ")
            throw TokenEndpointError("\(url.absoluteString) answered \(response.status)"
                + (reason.isEmpty ? "" : " (\(reason))"))
        }
        guard let body, let value = body["access_token"]?.stringValue, !value.isEmpty else {
            throw TokenEndpointError("\(url.absoluteString) answered without an access_token")
        }
        if let type = body["token_type"]?.stringValue, type.lowercased() != "bearer" {
            throw TokenEndpointError("\(url.absoluteString) answered a token of type '\(type)', not Bearer")
        }
        let lifetime = body["expires_in"]?.numberValue ?? body["expires_in"]?.stringValue.flatMap(Double.init) ?? 3600
        return AccessToken(value: value, expiresAt: sentAt.addingTimeInterval(lifetime), quotaProject: quotaProject)
    }
}

/// A token endpoint or metadata server gave no token; the message says why.
package struct TokenEndpointError: Error, Sendable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
