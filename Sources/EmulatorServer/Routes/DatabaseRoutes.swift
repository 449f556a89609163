import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird
import NIOCore

/// The Realtime Database REST API: `GET|PUT|PATCH|POST|DELETE /{path}.json?ns={instance}` with
/// queries, `print=pretty|silent`, ETags (`X-Firebase-ETag`, `if-match`, `if-none-match`),
/// `X-HTTP-Method-Override`, `disableTriggers=true`, and SSE streaming (`Accept: text/event-stream`).
///
/// Database paths have any depth, so the routes are a middleware that answers every request
/// whose path ends in `.json` and passes the others on to the router's other routes.
/// Errors are `{"error": "..."}` bodies (``DatabaseHTTPError``).
struct DatabaseRoutes {
    let server: EmulatorServer

    var service: DatabaseService { server.emulator.database }

    func add(to router: Router<EmulatorRequestContext>) {
        router.add(middleware: DatabaseMiddleware(routes: self))
        addBatchGet(to: router)
    }

    /// Answers one database request.
    func respond(to request: Request) async throws -> Response {
        var request = request
        if request.uri.path == "/.settings/rules.json" { return try await rules(&request) }
        do {
            let database = try DatabaseRequest(
                request, defaultNamespace: server.emulator.defaultDatabaseInstance,
                project: server.emulator.project, now: server.emulator.clock.now)
            switch database.method {
            case .get:
                if request.headers[.accept]?.contains("text/event-stream") == true {
                    return try stream(database)
                }
                return try read(database, headers: request.headers)
            case .put, .patch, .post:
                let body = try await Self.jsonBody(of: &request, limit: server.configuration.maxBodySize)
                return try await write(database, body: body, headers: request.headers)
            case .delete:
                return try await write(database, body: .null, headers: request.headers)
            }
        } catch let error as ServiceError {
            throw Self.httpError(error)
        }
    }

    /// `GET|PUT /.settings/rules.json` (admin only), as firebase-tools and the rules unit-testing
    /// library load rules: the text of the rules in force, or new rules (`{"status": "ok"}`, or
    /// 400 with `line:column: message` and the old rules kept). The rules apply to every instance.
    func rules(_ request: inout Request) async throws -> Response {
        guard request.isAdmin else { throw DatabaseHTTPError(error: .permissionDeniedByRules) }
        switch request.method {
        case .get:
            let text = service.rules?.text ?? DatabaseRules.open.text
            return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        case .put:
            let data = try await request.bodyData(limit: server.configuration.maxBodySize)
            do {
                service.rules = try DatabaseRules(text: String(decoding: data, as: UTF8.self))
            } catch {
                throw DatabaseHTTPError(error: ServiceError(.invalidArgument, "\(error)\n"))
            }
            return Response.json(["status": "ok"])
        default:
            throw DatabaseHTTPError(error: ServiceError(.methodNotAllowed,
                "Method \(request.method.rawValue) not allowed"))
        }
    }

    /// The JSON body of a write.
    ///
    /// - Throws: 400 `Invalid data; couldn't parse JSON object, array, or value.` for an empty or
    ///   malformed body; 413 over the limit.
    static func jsonBody(of request: inout Request, limit: Int) async throws -> JSONValue {
        let data = try await request.bodyData(limit: limit)
        guard let value = try? JSONValue(parsing: data) else {
            throw ServiceError(.invalidArgument, "Invalid data; couldn't parse JSON object, array, or value.")
        }
        return value
    }

    /// A service error as the database renders it: `{"error": "..."}`, or for a failed
    /// conditional write the current value with its ETag.
    static func httpError(_ error: ServiceError) -> DatabaseHTTPError {
        if let failure = DatabasePreconditionFailure(error) {
            return DatabaseHTTPError(error: error, currentValue: failure.value, etag: failure.etag)
        }
        return DatabaseHTTPError(error: error)
    }
}

/// Sends requests for `*.json` paths to ``DatabaseRoutes``; everything else goes on.
struct DatabaseMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext

    let routes: DatabaseRoutes

    func handle(_ request: Request, context: Context, next: EmulatorResponder) async throws -> Response {
        guard DatabaseRequest.isDatabasePath(request.uri.path) else { return try await next(request, context) }
        return try await routes.respond(to: request)
    }
}
