import CloudFunctions
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird

extension DatabaseRoutes {
    /// `X-Firebase-ETag: true` asks for the `ETag` header.
    static let firebaseETag = HTTPField.Name("X-Firebase-ETag")!
    /// How many function-made writes led to this one (sent by functions workers, honoured for
    /// admin requests), so runaway trigger loops stop over HTTP too.
    static let chainDepth = HTTPField.Name("X-Functions-Chain-Depth")!

    /// `GET`: the (queried) value; `ETag` when asked for; 304 when `if-none-match` is current.
    ///
    /// `format=export`, `callback`, `download` and `timeout` are accepted and ignored.
    func read(_ request: DatabaseRequest, headers: HTTPFields) throws(ServiceError) -> Response {
        try checkRead(request)
        let read = try service.getWithETag(
            namespace: request.namespace, path: request.path.description, queryParameters: request.parameters)
        let ifNoneMatch = headers[.ifNoneMatch]
        var responseHeaders: HTTPFields = [:]
        if ifNoneMatch != nil || headers[Self.firebaseETag]?.lowercased() == "true" {
            responseHeaders[.eTag] = read.etag
        }
        if let ifNoneMatch, ifNoneMatch == read.etag {
            return Response(status: .notModified, headers: responseHeaders)
        }
        return body(read.value, request: request, headers: responseHeaders)
    }

    /// Refuses a read the security rules do not allow (not for administrators).
    func checkRead(_ request: DatabaseRequest) throws(ServiceError) {
        guard let auth = request.rulesAuth else { return }
        try service.checkRead(namespace: request.namespace, path: request.path.description, auth: auth,
            query: request.parameters)
    }

    /// `PUT`, `PATCH`, `POST` (push) and `DELETE`, conditional on `if-match`; 204 for `print=silent`.
    ///
    /// Concurrent requests' writes share commits (``DatabaseService/write(_:)``).
    func write(_ request: DatabaseRequest, body value: JSONValue, headers: HTTPFields) async throws -> Response {
        let ifMatch = headers[.ifMatch]
        let operation: DatabaseWrite.Operation
        switch request.method {
        case .put: operation = .set(value)
        case .patch: operation = .update(value)
        case .post: operation = .push(value)
        case .delete: operation = .delete
        case .get: preconditionFailure("a read is not a write")
        }
        let auth = request.auth
        let result = try await service.write(DatabaseWrite(
            operation, namespace: request.namespace, path: request.path.description, auth: auth, ifMatch: ifMatch,
            disableTriggers: request.flag("disableTriggers"),
            chainDepth: auth == .admin ? headers[Self.chainDepth].flatMap { Int($0) }.map { max(0, $0) } ?? 0 : 0,
            rulesAuth: request.rulesAuth))
        let echo: JSONValue = switch request.method {
        case .post: ["name": result.name.map(JSONValue.string) ?? .null]
        case .delete: .null
        default: result.value
        }
        var responseHeaders: HTTPFields = [:]
        if request.method != .post, ifMatch != nil || headers[Self.firebaseETag]?.lowercased() == "true" {
            responseHeaders[.eTag] = result.etag
        }
        if request.isSilent { return Response(status: .noContent, headers: responseHeaders) }
        return body(echo, request: request, headers: responseHeaders)
    }

    /// A 200 JSON body, indented for `print=pretty`.
    func body(_ value: JSONValue, request: DatabaseRequest, headers: HTTPFields) -> Response {
        guard request.parameters["print"] == "pretty" else { return .json(value, headers: headers) }
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: value.indented())))
    }
}
