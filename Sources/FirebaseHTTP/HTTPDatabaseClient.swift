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
    /// Coalesces concurrent reads, when the client was made with `batchesReads`.
    let reads: DatabaseReadBatcher?

    /// Creates a client of one database instance; `baseURL` is e.g. `http://127.0.0.1:4400`.
    ///
    /// With `batchesReads`, reads made while another is on its way go together in one request
    /// to the emulator's `POST /emulator/v1/databases/{namespace}:batchGet` (see
    /// `DatabaseReadBatcher`); only this repository's emulator serves that route.
    public init(baseURL: URL, namespace: String, bearerToken: String = "owner", batchesReads: Bool = false) {
        let http = AdminHTTP(baseURL: baseURL, bearerToken: bearerToken)
        // The batcher sends through a client without one.
        let plain = HTTPDatabaseClient(http: http, namespace: namespace, chainDepth: 0, reads: nil)
        self.init(http: http, namespace: namespace, chainDepth: 0, reads: batchesReads ? DatabaseReadBatcher(
            single: { read in try await plain.readAlone(read.path, versioned: read.versioned) },
            batch: { reads in try await plain.readTogether(reads) }) : nil)
    }

    init(http: AdminHTTP, namespace: String, chainDepth: Int, reads: DatabaseReadBatcher?) {
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
        let name = AdminHTTP.percentEncoded(namespace)
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
        var query = [URLQueryItem(name: "ns", value: namespace)]
        if silent { query.insert(URLQueryItem(name: "print", value: "silent"), at: 0) }
        let segments = path.split(separator: "/").map {
            AdminHTTP.percentEncoded($0, keeping: AdminHTTP.segmentCharacters)
        }
        return try await http.send(method, "/" + segments.joined(separator: "/") + ".json", query: query, json: value,
            headers: headers)
    }
}
