import CloudEvents
import CloudFunctions
import Foundation

/// `context.database` for a functions binary: the Realtime Database REST API
/// (`{base}/{path}.json?ns={instance}`) of an emulator, as an administrator.
///
/// Writes made while handling an event send `X-Functions-Chain-Depth`, so the emulator stops a
/// function that keeps writing where it listens, as it does in process.
public struct HTTPDatabaseClient: DatabaseClient {
    let http: AdminHTTP
    /// The database instance (`ns`), e.g. `demo-project-default-rtdb`.
    public let namespace: String
    let chainDepth: Int

    /// Creates a client of one database instance; `baseURL` is e.g. `http://127.0.0.1:4400`.
    public init(baseURL: URL, namespace: String, bearerToken: String = "owner") {
        self.init(http: AdminHTTP(baseURL: baseURL, bearerToken: bearerToken), namespace: namespace, chainDepth: 0)
    }

    init(http: AdminHTTP, namespace: String, chainDepth: Int) {
        self.http = http
        self.namespace = namespace
        self.chainDepth = chainDepth
    }

    public func handling(_ event: CloudEvent) -> any DatabaseClient {
        return HTTPDatabaseClient(http: http, namespace: namespace, chainDepth: event.chainDepth + 1)
    }

    public func get(_ path: String) async throws -> JSONValue {
        try await send("GET", path).json()
    }

    public func set(_ path: String, _ value: JSONValue) async throws {
        try await send("PUT", path, value, silent: true)
    }

    public func update(_ path: String, _ values: [String: JSONValue]) async throws {
        try await send("PATCH", path, .object(values), silent: true)
    }

    public func push(_ path: String, _ value: JSONValue) async throws -> String {
        let answer = try await send("POST", path, value).json()
        guard let name = answer["name"]?.stringValue else {
            throw AdminHTTPError(status: 200, message: "the push answer has no name: \(answer.serialized())")
        }
        return name
    }

    public func delete(_ path: String) async throws {
        try await send("DELETE", path, silent: true)
    }

    public func getVersioned(_ path: String) async throws -> VersionedValue {
        let answer = try await send("GET", path, headers: ["X-Firebase-ETag": "true"])
        guard let etag = answer.headers["etag"] else {
            throw AdminHTTPError(status: 200, message: "the database answered without an ETag")
        }
        return VersionedValue(value: try answer.json(), etag: etag)
    }

    public func set(_ path: String, _ value: JSONValue, ifMatch etag: String) async throws -> VersionedValue? {
        do {
            try await send("PUT", path, value, silent: true, headers: ["If-Match": etag])
            return nil
        } catch let error as AdminHTTPError where error.status == 412 {
            // The current value and its ETag come with the refusal.
            guard let answer = error.answer, let current = answer.headers["etag"] else { throw error }
            return VersionedValue(value: try answer.json(), etag: current)
        }
    }

    @discardableResult
    private func send(
        _ method: String, _ path: String, _ value: JSONValue? = nil, silent: Bool = false,
        headers: [String: String] = [:]
    ) async throws -> AdminHTTP.Answer {
        var headers = headers
        if chainDepth > 0 { headers["X-Functions-Chain-Depth"] = String(chainDepth) }
        var query = [URLQueryItem(name: "ns", value: namespace)]
        if silent { query.insert(URLQueryItem(name: "print", value: "silent"), at: 0) }
        let segments = path.split(separator: "/").map {
            AdminHTTP.percentEncoded($0, keeping: AdminHTTP.segmentCharacters)
        }
        return try await http.send(method, "/" + segments.joined(separator: "/") + ".json", query: query, json: value,
            headers: headers)
    }
}
