import Foundation
import HTTPTypes

/// The answer a request function gives: a status, header fields and a body, or (for streaming
/// callables) a body written piece by piece while the handler runs.
public struct HTTPSResponse: Sendable {
    /// Writes a streamed body: called once with a function that sends one piece.
    public typealias BodyWriter = @Sendable (_ write: (Data) async throws -> Void) async throws -> Void

    /// The status (200 unless set).
    public var status: HTTPResponse.Status
    /// The header fields.
    public var headerFields: HTTPFields
    /// The body.
    public var body: Data
    /// A body sent in pieces after `body`, when the response streams.
    public var bodyWriter: BodyWriter?

    /// Creates a response.
    public init(status: HTTPResponse.Status = .ok, headerFields: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// Sets a text body (and its content type, unless one is set).
    public mutating func send(_ text: String, contentType: String = "text/plain; charset=utf-8") {
        body = Data(text.utf8)
        if headerFields[.contentType] == nil { headerFields[.contentType] = contentType }
    }

    /// Sets a JSON body and the JSON content type.
    public mutating func send(json value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        body = try encoder.encode(value)
        headerFields[.contentType] = "application/json; charset=utf-8"
    }

    /// The whole body: `body`, then every streamed piece.
    public func collectBody() async throws -> Data {
        var whole = body
        try await bodyWriter? { whole.append($0) }
        return whole
    }

    /// The answer to a ``CallableError``: `{"error": {"status", "message", "details"?}}` with the
    /// code's HTTP status, as callables, blocking functions and HTTPS functions answer it.
    package static func error(_ error: CallableError) -> HTTPSResponse {
        .json(["error": error.wireValue], status: error.code.httpStatus)
    }

    /// A JSON response.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> HTTPSResponse {
        HTTPSResponse(
            status: status,
            headerFields: [.contentType: "application/json; charset=utf-8"],
            body: value.serializedData(sortedKeys: true)
        )
    }
}
