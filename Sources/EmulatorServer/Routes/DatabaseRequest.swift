import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird

/// A Realtime Database REST request, decoded from its URI and headers: `/{path}.json?ns=...`.
struct DatabaseRequest {
    /// The operations of the REST API.
    enum Method: String {
        case get = "GET", put = "PUT", patch = "PATCH", post = "POST", delete = "DELETE"
    }

    /// The namespace (database instance): `?ns=`, else the emulator's default instance.
    var namespace: String
    /// The location, validated (`/` for the root).
    var path: DatabasePath
    /// The method, after `X-HTTP-Method-Override`.
    var method: Method
    /// The query parameters, percent-decoded (the last of repeated names wins).
    var parameters: [String: String]
    /// Who writes.
    var auth: DatabaseWriteAuth
    /// The security rules' `auth` variable (JSON `null` when signed out), or `nil` for an
    /// administrator, whom the rules do not apply to (unless `auth_variable_override` says
    /// whom to act as, as firebase-admin's `databaseAuthVariableOverride` does).
    var rulesAuth: JSONValue?

    /// Whether `path` (the raw URI path) is a database path: it ends in `.json`.
    static func isDatabasePath(_ path: String) -> Bool {
        path.hasSuffix(".json")
    }

    /// Decodes a request whose path ends in `.json`.
    ///
    /// - Throws: `ServiceError` (400) for a bad path or method override, 401 for an `auth` token that
    ///   does not parse, 405 for another method.
    init(_ request: Request, defaultNamespace: String, project: String, now: Date) throws(ServiceError) {
        parameters = Self.parameters(query: request.uri.query)
        namespace = parameters["ns"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultNamespace
        path = try Self.path(fromURIPath: request.uri.path)
        method = try Self.method(of: request, parameters: parameters)
        (auth, rulesAuth) = try Self.auth(of: request, parameters: parameters, project: project, now: now)
    }

    /// The parameters of a query string, form-decoded as the database's servers decode them: a
    /// `+` is a space (Python's firebase-admin, through `requests`, and Go's send spaces so), and
    /// `%XX` the byte it names; a `%` that names none stays as it is. The last of repeated keys wins.
    static func parameters(query: String?) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                let text = text.replacingOccurrences(of: "+", with: " ")
                return text.percentDecoded ?? text
            }
            parameters[decoded(parts[0])] = parts.count > 1 ? decoded(parts[1]) : ""
        }
        return parameters
    }

    /// The location of a URI path such as `/users/u%201.json` (`/users/u 1`); `/.json` is the root.
    static func path(fromURIPath uriPath: String) throws(ServiceError) -> DatabasePath {
        var raw = uriPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if var last = raw.popLast() {
            last.removeLast(".json".count)
            if !last.isEmpty { raw.append(last) }
        }
        var segments: [String] = []
        for segment in raw {
            guard let decoded = segment.percentDecoded else {
                throw ServiceError(.invalidArgument,
                    "Invalid path: segment \"\(segment)\" is not percent-encoded UTF-8")
            }
            segments.append(decoded)
        }
        return try DatabasePath(segments: segments)
    }

    /// The method, honouring `X-HTTP-Method-Override` (header or query) on a `POST`.
    static func method(of request: Request, parameters: [String: String]) throws(ServiceError) -> Method {
        let name = request.method.rawValue
        let override = request.headers[HTTPField.Name("X-HTTP-Method-Override")!]
            ?? parameters["x-http-method-override"]
        if name == "POST", let override {
            guard let method = Method(rawValue: override.uppercased()) else {
                throw ServiceError(.invalidArgument, "Invalid X-HTTP-Method-Override: \(override)")
            }
            return method
        }
        guard let method = Method(rawValue: name) else {
            throw ServiceError(.methodNotAllowed, "Method \(name) not allowed")
        }
        return method
    }

    /// Who the request acts as: admin for `Bearer owner` (or a Google OAuth token), the user of
    /// an emulator ID token given as `auth=` or as the bearer token, else unauthenticated.
    static func auth(of request: Request, parameters: [String: String], project: String, now: Date)
        throws(ServiceError) -> (DatabaseWriteAuth, JSONValue?)
    {
        if request.isAdmin {
            guard let override = parameters["auth_variable_override"] else { return (.admin, nil) }
            guard let auth = try? JSONValue(parsing: override), auth.isNull || auth.objectValue != nil else {
                throw ServiceError(.invalidArgument, "auth_variable_override must be a JSON object or null")
            }
            return (auth["uid"]?.stringValue.map { .user(uid: $0) } ?? .unauthenticated, auth)
        }
        var token = parameters["auth"]
        if token == nil, let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { token = String(parts[1]) }
        }
        guard let token, !token.isEmpty else { return (.unauthenticated, .null) }
        do {
            let idToken = try AuthIDToken(parsing: token, projectId: project, now: now, checksExpiry: false)
            return (.user(uid: idToken.uid), DatabaseRules.auth(uid: idToken.uid, claims: idToken.claims))
        } catch {
            throw ServiceError(.unauthenticated, "Could not parse auth token.")
        }
    }

    /// Whether a query parameter is `true`.
    func flag(_ name: String) -> Bool {
        parameters[name] == "true"
    }

    /// Whether the response body is suppressed (`print=silent`).
    var isSilent: Bool { parameters["print"] == "silent" }
}
