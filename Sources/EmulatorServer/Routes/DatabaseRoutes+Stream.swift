import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird

extension DatabaseRoutes {
    /// The SSE frame that keeps an idle stream open.
    static let keepAliveFrame = "event: keep-alive\ndata: null\n\n"
    /// The SSE frame that ends a stream the security rules no longer allow.
    static let cancelFrame = "event: cancel\ndata: \"Permission denied\"\n\n"

    /// `GET` with `Accept: text/event-stream`: the REST streaming protocol.
    ///
    /// Sends `event: put` with `{"path": "/", "data": <current value>}` first, then a `put` or
    /// `patch` frame for every write that concerns the location, and `keep-alive` frames every
    /// ``EmulatorServer/Configuration/databaseKeepAliveInterval``. The stream ends (and its change
    /// feed is closed) when the client goes away (the next frame fails to write), when the
    /// service shuts down, or on the server's graceful shutdown.
    ///
    /// A stream with query parameters (`orderBy`, `equalTo`, `limitToFirst`, ...) follows the
    /// query's result instead: a `put` at `/` of the result first, and again whenever a write
    /// changes it. It never sends data outside the query, which the rules may have allowed only
    /// for that query.
    ///
    /// A client's stream is checked against the security rules when it opens (401 when denied)
    /// and before each frame: once they no longer allow the read, `event: cancel` with
    /// `"Permission denied"` ends it.
    func stream(_ request: DatabaseRequest) throws(ServiceError) -> Response {
        try checkRead(request)
        let query = try DatabaseQuery(parameters: request.parameters)
        let queried = query != DatabaseQuery()
        let changes = try service.changes(namespace: request.namespace, path: request.path.description)
        let service = service
        return .eventStream(keepAlive: Self.keepAliveFrame, every: server.configuration.databaseKeepAliveInterval) {
            frames in
            var result: JSONValue?
            for await change in changes {
                // Rules apply for the stream's whole life: a read they no longer allow
                // (the rules changed, or the data they depend on) cancels it.
                if (try? checkRead(request)) == nil {
                    frames.yield(Self.cancelFrame)
                    return
                }
                guard queried else {
                    frames.yield(Self.frame(change))
                    continue
                }
                guard let current = try? service.get(namespace: request.namespace, path: request.path.description,
                    query: query), current != result
                else { continue }
                result = current
                frames.yield(Self.frame(DatabaseChangeEvent(event: .put, path: "/", data: current)))
            }
        }
    }

    /// The SSE frame of a change: `event: put|patch` and `data: {"path": ..., "data": ...}` (path first,
    /// as Firebase sends it).
    static func frame(_ change: DatabaseChangeEvent) -> String {
        let payload = #"{"path":"# + JSONValue.string(change.path).serialized() + #","data":"#
            + change.data.serialized() + "}"
        return Response.eventFrame(change.event.rawValue, data: payload)
    }
}
