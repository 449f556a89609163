import CloudEvents
import CloudFunctions
import Foundation
import Tracing

/// `context.database` for a functions binary: the Realtime Database REST API
/// (`{base}/{path}.json`), of a database instance at Google or of an emulator (which names the
/// instance with `?ns={instance}`).
///
/// Writes made while handling an event send `X-Functions-Chain-Depth`, so the emulator stops a
/// function that keeps writing where it listens, as it does in process.
public struct HTTPDatabaseClient: DatabaseClient {
    let http: AdminHTTP
    /// The database instance named by `?ns=`, e.g. `demo-project-default-rtdb`; `nil` where the
    /// host names it (`https://NS.firebaseio.com`).
    public let namespace: String?
    let chainDepth: Int
    /// Coalesces concurrent reads, when the client was made with `batchesReads`.
    let reads: DatabaseReadBatcher?

    /// Creates a client of one database instance at `baseURL`, acting as `credentials`.
    ///
    /// With `batchesReads`, reads made while another is on its way go together in one request
    /// to the emulator's `POST /emulator/v1/databases/{namespace}:batchGet` (see
    /// `DatabaseReadBatcher`); only this repository's emulator serves that route.
    public init(baseURL: URL, namespace: String?, credentials: any AdminCredentials, batchesReads: Bool = false) {
        let http = AdminHTTP(baseURL: baseURL, credentials: credentials)
        // The batcher sends through a client without one.
        let plain = HTTPDatabaseClient(http: http, namespace: namespace, chainDepth: 0, reads: nil)
        self.init(http: http, namespace: namespace, chainDepth: 0, reads: batchesReads && namespace != nil
            ? DatabaseReadBatcher(
                single: { read in try await plain.readAlone(read.path, versioned: read.versioned) },
                batch: { reads in try await plain.readTogether(reads) })
            : nil)
    }

    /// Creates a client of one database instance of an emulator at `baseURL`, e.g.
    /// `http://127.0.0.1:4400`.
    public init(baseURL: URL, namespace: String, bearerToken: String = "owner", batchesReads: Bool = false) {
        self.init(baseURL: baseURL, namespace: namespace, credentials: FixedCredentials(project: nil, token: bearerToken),
            batchesReads: batchesReads)
    }

    /// Creates a client of the instance a database URL names, as `FIREBASE_CONFIG`'s
    /// `databaseURL` gives it: `https://NS.firebaseio.com`, `https://NS.REGION.firebasedatabase.app`,
    /// or any other URL with the instance in `?ns=NS` (an emulator's form).
    ///
    /// - Throws: ``AdminHTTPError`` (status 0) for a URL that is none of these.
    public init(databaseURL: URL, credentials: any AdminCredentials) throws {
        guard let scheme = databaseURL.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = databaseURL.host?.lowercased(), !host.isEmpty
        else {
            throw AdminHTTPError(status: 0, message: "the database URL '\(databaseURL.absoluteString)' is not an http(s) URL")
        }
        let components = URLComponents(url: databaseURL, resolvingAgainstBaseURL: false)
        let named = components?.queryItems?.first { $0.name == "ns" }?.value.flatMap { $0.isEmpty ? nil : $0 }
        if named == nil, !(host.hasSuffix(".firebaseio.com") || host.hasSuffix(".firebasedatabase.app")) {
            throw AdminHTTPError(status: 0, message: "the database URL '\(databaseURL.absoluteString)' names no "
                + "instance: use https://NS.firebaseio.com, https://NS.REGION.firebasedatabase.app, or a URL with ?ns=NS")
        }
        var base = URLComponents()
        base.scheme = scheme
        base.host = components?.host
        base.port = components?.port
        guard let baseURL = base.url else {
            throw AdminHTTPError(status: 0, message: "the database URL '\(databaseURL.absoluteString)' is not an http(s) URL")
        }
        self.init(baseURL: baseURL, namespace: named, credentials: credentials)
    }

    init(http: AdminHTTP, namespace: String?, chainDepth: Int, reads: DatabaseReadBatcher?) {
        self.http = http
        self.namespace = namespace
        self.chainDepth = chainDepth
        self.reads = reads
    }

    public func handling(_ event: CloudEvent) -> any DatabaseClient {
        return HTTPDatabaseClient(http: http, namespace: namespace, chainDepth: event.chainDepth + 1, reads: reads)
    }

    public func get(_ path: String) async throws -> JSONValue {
        try await read(path, versioned: false).value
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

    /// A transaction is a span of its own when the process traces, with its reads and writes
    /// (AsyncHTTPClient's spans) inside it.
    public func withinTransaction<T: Sendable>(at path: String, _ body: () async throws -> T) async throws -> T {
        guard HTTPExchange.traces else { return try await body() }
        return try await withSpan("database transaction", ofKind: .client) { span in
            span.attributes["db.system.name"] = "firebase_realtime_database"
            span.attributes["db.operation.name"] = "transaction"
            span.attributes["db.collection.name"] = path
            return try await body()
        }
    }

    public func getVersioned(_ path: String) async throws -> VersionedValue {
        try await read(path, versioned: true)
    }

    /// A read, through the batcher when there is one.
    private func read(_ path: String, versioned: Bool) async throws -> VersionedValue {
        if let reads { return try await reads.read(path, versioned: versioned) }
        return try await readAlone(path, versioned: versioned)
    }

    /// One read, as the REST `GET` (with `X-Firebase-ETag` when `versioned`; else the ETag is empty).
    func readAlone(_ path: String, versioned: Bool) async throws -> VersionedValue {
        guard versioned else { return VersionedValue(value: try await send("GET", path).json(), etag: "") }
        let answer = try await send("GET", path, headers: ["X-Firebase-ETag": "true"])
        guard let etag = answer.headers["etag"] else {
            throw AdminHTTPError(status: 200, message: "the database answered without an ETag")
        }
        return VersionedValue(value: try answer.json(), etag: etag)
    }

    /// Reads in one request to the emulator's batch route: one result per read, in order; a read
    /// the emulator refused (a bad path, say) fails alone.
    func readTogether(_ reads: [DatabaseReadBatcher.Read]) async throws -> [Result<VersionedValue, AdminHTTPError>] {
        let body: JSONValue = ["reads": .array(reads.map { ["path": .string($0.path), "etag": .bool($0.versioned)] })]
        let name = AdminHTTP.percentEncoded(namespace ?? "")
        let answer = try await http.send("POST", "/emulator/v1/databases/\(name):batchGet", json: body).json()
        guard let results = answer["reads"]?.arrayValue, results.count == reads.count else {
            throw AdminHTTPError(status: 200,
                message: "the batch read answer does not hold \(reads.count) reads: \(answer.serialized().prefix(500))")
        }
        return zip(reads, results).map { read, result in
            if let error = result["error"] {
                let code = error["code"]?.numberValue.flatMap { Int(exactly: $0) } ?? 500
                return .failure(AdminHTTPError(status: code, message: error["message"]?.stringValue ?? "read failed"))
            }
            let etag = result["etag"]?.stringValue
            if read.versioned && etag == nil {
                return .failure(AdminHTTPError(status: 200, message: "the database answered without an ETag"))
            }
            return .success(VersionedValue(value: result["value"] ?? .null, etag: etag ?? ""))
        }
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
        var query: [URLQueryItem] = []
        if silent { query.append(URLQueryItem(name: "print", value: "silent")) }
        if let namespace { query.append(URLQueryItem(name: "ns", value: namespace)) }
        let segments = path.split(separator: "/").map {
            AdminHTTP.percentEncoded($0, keeping: AdminHTTP.segmentCharacters)
        }
        return try await http.send(method, "/" + segments.joined(separator: "/") + ".json", query: query, json: value,
            headers: headers)
    }
}
