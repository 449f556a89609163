import Foundation
import HTTPTypes

/// An HTTP request as a request function receives it.
///
/// `path` is what follows the function's name in the URL: `/` for
/// `https://…/{name}`, `/items/7` for `https://…/{name}/items/7`.
public struct HTTPSRequest: Sendable {
    /// The method.
    public var method: HTTPRequest.Method
    /// The path below the function's name, starting with `/`.
    public var path: String
    /// The query parameters, in order.
    public var queryItems: [URLQueryItem]
    /// The header fields.
    public var headerFields: HTTPFields
    /// The body (at most the worker's body limit).
    public var body: Data

    /// Creates a request.
    public init(
        method: HTTPRequest.Method = .post,
        path: String = "/",
        queryItems: [URLQueryItem] = [],
        headerFields: HTTPFields = [:],
        body: Data = Data()
    ) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headerFields = headerFields
        self.body = body
    }

    /// Creates a request from a path with an optional query string (`/items?limit=5`).
    public init(method: HTTPRequest.Method, target: String, headerFields: HTTPFields = [:], body: Data = Data()) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? ""
        self.init(
            method: method,
            path: path.hasPrefix("/") ? path : "/" + path,
            queryItems: parts.count > 1 ? Self.parseQuery(String(parts[1])) : [],
            headerFields: headerFields,
            body: body
        )
    }

    /// The parameters of a query string as a request target carries it (`a=1&b=%20x`).
    ///
    /// Never refuses one: characters a query may not hold (`{`, `"`, a space) and a `%` not
    /// followed by two hex digits are taken as themselves, as Node's query parsers take them.
    public static func parseQuery(_ query: String) -> [URLQueryItem] {
        guard !query.isEmpty else { return [] }
        // No fragment reaches a server: a `#` in a request target is the query's own.
        return URLComponents(string: "?" + query.replacingOccurrences(of: "#", with: "%23"))?.queryItems ?? []
    }

    /// The first value of the query parameter `name`.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The body decoded from JSON.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: body)
    }

    /// The media type of the body, lowercased and without parameters (`application/json`).
    public var mediaType: String? {
        headerFields[.contentType].map {
            $0.split(separator: ";", maxSplits: 1).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        }
    }
}
