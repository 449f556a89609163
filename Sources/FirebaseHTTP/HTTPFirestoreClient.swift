import CloudFunctions
import Foundation

/// `context.admin.firestore` for a functions binary: the Firestore REST API
/// (`{base}/v1/projects/{project}/databases/{database}/documents`), of Google or of the
/// Firestore emulator (whose administrator is `Bearer owner`).
public struct HTTPFirestoreClient: FirestoreClient {
    /// Google's Firestore API.
    public static let productionBaseURL = URL(string: "https://firestore.googleapis.com")!

    let address: GoogleServiceAddress
    let credentials: any AdminCredentials
    /// The database, `(default)` unless told.
    public let database: String

    /// A client of `baseURL` acting as `credentials`.
    public init(baseURL: URL, credentials: any AdminCredentials, database: String = "(default)") {
        address = GoogleServiceAddress(baseURL)
        self.credentials = credentials
        self.database = database
    }

    /// A client of the Firestore emulator this repository's emulator at `hub` runs (asked for
    /// its address when first used).
    public init(emulatorHub hub: URL, project: String, database: String = "(default)") {
        address = GoogleServiceAddress(hub: hub, service: "firestore")
        credentials = FixedCredentials(project: project)
        self.database = database
    }

    /// A client of the emulator that `find` gives the address of (asked when first used, and
    /// again after a call could not connect): an in-process emulator's own.
    package init(foundBy find: @escaping @Sendable () async throws -> URL, project: String, database: String = "(default)") {
        address = GoogleServiceAddress(foundBy: find)
        credentials = FixedCredentials(project: project)
        self.database = database
    }

    public func get(_ path: String, transaction: String?) async throws -> DocumentSnapshot {
        if let transaction {
            // A read in a transaction goes through batchGet: the emulator never answers a GET
            // that names a transaction.
            let answer = try await send("POST", try await documentsPath() + ":batchGet",
                json: ["documents": [.string(try await documentName(path))], "transaction": .string(transaction)])
            let result = try answer.json().arrayValue?.first
            if let found = result?["found"] {
                guard let snapshot = DocumentSnapshot(restJSON: found, path: path) else {
                    throw FirestoreError(code: 200, status: "INTERNAL", message: "the answer is not a document")
                }
                return snapshot
            }
            guard result?["missing"] != nil else {
                throw FirestoreError(code: 200, status: "INTERNAL", message: "the answer names no document")
            }
            return .missing(path: path)
        }
        do {
            let answer = try await send("GET", try await documentsPath() + "/" + Self.encoded(path))
            guard let snapshot = DocumentSnapshot(restJSON: try answer.json(), path: path) else {
                throw FirestoreError(code: 200, status: "INTERNAL", message: "the answer is not a document")
            }
            return snapshot
        } catch let error as FirestoreError where error.status == "NOT_FOUND" {
            return .missing(path: path)
        }
    }

    public func query(_ query: FirestoreQuery) async throws -> [DocumentSnapshot] {
        var segments = query.collection.split(separator: "/").map(String.init)
        guard let collection = segments.popLast() else {
            throw FirestoreError(code: 400, status: "INVALID_ARGUMENT", message: "a query needs a collection")
        }
        let parent = segments.isEmpty ? "" : "/" + Self.encoded(segments.joined(separator: "/"))
        var structured: [String: JSONValue] = ["from": [["collectionId": .string(collection)]]]
        let filters: [JSONValue] = query.filters.map { filter in
            ["fieldFilter": ["field": ["fieldPath": .string(Self.fieldPath(filter.field))],
                "op": .string(filter.op.rawValue), "value": filter.value.restJSON]]
        }
        if filters.count == 1 {
            structured["where"] = filters[0]
        } else if filters.count > 1 {
            structured["where"] = ["compositeFilter": ["op": "AND", "filters": .array(filters)]]
        }
        if !query.orderBy.isEmpty {
            structured["orderBy"] = .array(query.orderBy.map { order in
                ["field": ["fieldPath": .string(Self.fieldPath(order.field))],
                    "direction": order.descending ? "DESCENDING" : "ASCENDING"]
            })
        }
        if let limit = query.limit { structured["limit"] = .number(Double(limit)) }
        let root = try await documentsPath()
        let answer = try await send("POST", root + parent + ":runQuery", json: ["structuredQuery": .object(structured)])
        let prefix = try await documentName("")
        return try answer.json().arrayValue?.compactMap { result -> DocumentSnapshot? in
            guard let document = result["document"], let name = document["name"]?.stringValue else { return nil }
            return DocumentSnapshot(restJSON: document, path: String(name.dropFirst(prefix.count)))
        } ?? []
    }

    public func commit(_ writes: [FirestoreWrite], transaction: String?) async throws {
        var body: [String: JSONValue] = ["writes": .array(try await writes.asyncMap(write))]
        if let transaction { body["transaction"] = .string(transaction) }
        try await send("POST", try await documentsPath() + ":commit", json: .object(body))
    }

    public func beginTransaction() async throws -> String {
        let answer = try await send("POST", try await documentsPath() + ":beginTransaction", json: [:])
        guard let id = try answer.json()["transaction"]?.stringValue else {
            throw FirestoreError(code: 200, status: "INTERNAL", message: "the answer names no transaction")
        }
        return id
    }

    public func rollback(_ transaction: String) async throws {
        try await send("POST", try await documentsPath() + ":rollback", json: ["transaction": .string(transaction)])
    }

    /// One write in the REST API's form.
    private func write(_ write: FirestoreWrite) async throws -> JSONValue {
        let name = try await documentName(write.path)
        switch write {
        case .set(_, let fields, let merge):
            var json: [String: JSONValue] = ["update": ["name": .string(name), "fields": Self.restFields(fields)]]
            if merge { json["updateMask"] = ["fieldPaths": .array(Self.leafPaths(fields).map(JSONValue.string))] }
            return .object(json)
        case .create(_, let fields):
            return ["update": ["name": .string(name), "fields": Self.restFields(fields)], "currentDocument": ["exists": false]]
        case .update(_, let fieldsByPath):
            var nested = FirestoreValue.map([:])
            for (path, value) in fieldsByPath { nested.set(value, at: path.split(separator: ".").map(String.init)) }
            return [
                "update": ["name": .string(name), "fields": Self.restFields(nested.mapValue ?? [:])],
                "updateMask": ["fieldPaths": .array(fieldsByPath.keys.sorted().map { .string(Self.fieldPath($0)) })],
                "currentDocument": ["exists": true],
            ]
        case .delete:
            return ["delete": .string(name)]
        }
    }

    private static func restFields(_ fields: [String: FirestoreValue]) -> JSONValue {
        .object(fields.mapValues(\.restJSON))
    }

    /// The field paths of the leaves of `fields` (a merge sets those, keeping the rest).
    static func leafPaths(_ fields: [String: FirestoreValue], prefix: [String] = []) -> [String] {
        fields.keys.sorted().flatMap { name -> [String] in
            if case .map(let nested) = fields[name]!, !nested.isEmpty { return leafPaths(nested, prefix: prefix + [name]) }
            return [(prefix + [name]).map(quotedSegment).joined(separator: ".")]
        }
    }

    /// A dotted field path with each segment quoted as the service needs.
    static func fieldPath(_ dotted: String) -> String {
        dotted.split(separator: ".").map { quotedSegment(String($0)) }.joined(separator: ".")
    }

    /// A field name as a path segment: as it is when it is a simple name, else in backticks.
    static func quotedSegment(_ name: String) -> String {
        let simple = name.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
            && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return simple ? name : "`" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "`", with: "\\`") + "`"
    }

    private func documentsPath() async throws -> String {
        "/v1/projects/\(try await credentials.projectID())/databases/\(Self.encoded(database))/documents"
    }

    private func documentName(_ path: String) async throws -> String {
        "projects/\(try await credentials.projectID())/databases/\(database)/documents/\(path)"
    }

    private static func encoded(_ path: String) -> String {
        path.split(separator: "/").map { AdminHTTP.percentEncoded($0, keeping: AdminHTTP.segmentCharacters) }
            .joined(separator: "/")
    }

    @discardableResult
    private func send(_ method: String, _ path: String, query: [URLQueryItem] = [], json: JSONValue? = nil) async throws
        -> AdminHTTP.Answer
    {
        do {
            return try await address.withURL { base in
                try await AdminHTTP(baseURL: base, credentials: credentials).send(method, path, query: query, json: json)
            }
        } catch let error as AdminHTTPError {
            let body = try? error.answer?.json()["error"]
            throw FirestoreError(code: error.status, status: body?["status"]?.stringValue ?? "HTTP \(error.status)",
                message: body?["message"]?.stringValue ?? error.message)
        }
    }
}

extension FirestoreValue {
    /// Sets `value` at the field path `path` below this map, making the maps between.
    mutating func set(_ value: FirestoreValue, at path: [String]) {
        guard let first = path.first else {
            self = value
            return
        }
        var fields = mapValue ?? [:]
        var child = fields[first] ?? .map([:])
        child.set(value, at: Array(path.dropFirst()))
        fields[first] = child
        self = .map(fields)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        results.reserveCapacity(count)
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
