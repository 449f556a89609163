import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import NIOHTTPCompression
import Tracing

/// One HTTP request and its whole answer, over one AsyncHTTPClient for the process: its
/// connections are pooled and kept alive between calls, so the many small calls of handlers and
/// of event delivery do not each open a connection.
///
/// A connection that cannot be made fails the request at once (refused) or after 5 s, rather
/// than being retried until the request's deadline: a worker that died must be noticed, not
/// waited for, and a Google API or token endpoint that cannot be reached fails the event, which
/// its platform delivers again. Redirects are not
/// followed (they would carry the bearer token elsewhere).
public enum HTTPExchange {
    /// An answer, whatever its status.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// The headers, with lower-cased names (the last value of a repeated header).
        public var headers: [String: String]
        /// The body.
        public var body: Data
    }

    /// The client every exchange goes through; it lives as long as the process.
    static let client = makeClient(decompression: .disabled)

    /// The client of exchanges whose answers may come gzipped (Google's APIs answer gzip when
    /// asked); made on first use. The other does not inflate: the emulator passes a worker's
    /// gzipped answer on as it is.
    static let inflatingClient = makeClient(decompression: .enabled(limit: .size(maximumBodySize)))

    private static func makeClient(decompression: HTTPClient.Decompression) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.decompression = decompression
        configuration.connectionPool.retryConnectionEstablishment = false
        // At least as many requests at once to one peer as a function instance takes events
        // (`concurrency`, at most 1,000): AsyncHTTPClient's default of 8 connections queued the
        // rest, so 80 handlers writing to the emulator at once, or 80 requests forwarded to one
        // instance, went 8 at a time.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerPeer
        configuration.timeout.connect = .seconds(5)
        configuration.redirectConfiguration = .disallow
        // Spans only for a tracer the process bootstrapped: the default no-op tracer would still
        // cost a span and its attributes on every call.
        if !traces { configuration.tracing.tracer = nil }
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Whether the process bootstrapped a tracer: read once, on first use, which comes after the
    /// bootstrap.
    public static let traces = !(InstrumentationSystem.tracer is NoOpTracer)

    /// The most connections kept to one host and port: requests beyond them wait for one.
    public static let connectionsPerPeer = 1_000

    /// The largest answer body read.
    public static let maximumBodySize = 64 * 1024 * 1024

    /// Sends a request and reads the answer; with `inflatesGzip`, a gzipped answer's body is
    /// inflated (up to ``maximumBodySize``).
    ///
    /// - Throws: AsyncHTTPClient's error when there is no answer (refused, reset, timed out).
    public static func send(
        _ method: String,
        _ url: URL,
        headers: [(String, String)] = [],
        body: Data? = nil,
        timeout: Duration = .seconds(60),
        inflatesGzip: Bool = false
    ) async throws -> Response {
        let response = try await execute(method, url, headers: headers, body: body, timeout: timeout,
            keepsRepeatedHeaders: false, client: inflatesGzip ? inflatingClient : client)
        let buffer = try await response.body.collect(upTo: maximumBodySize)
        var fields: [String: String] = [:]
        for field in response.headers { fields[field.name.lowercased()] = field.value }
        return Response(status: Int(response.status.code), headers: fields, body: Data(buffer: buffer))
    }

    /// Sends a request and returns once the answer's head has arrived. A header named twice is
    /// sent twice when `keepsRepeatedHeaders`, else the last value wins.
    private static func execute(
        _ method: String,
        _ url: URL,
        headers: [(String, String)],
        body: Data?,
        timeout: Duration,
        keepsRepeatedHeaders: Bool,
        client: HTTPClient = client
    ) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers {
            if keepsRepeatedHeaders {
                request.headers.add(name: name, value: value)
            } else {
                request.headers.replaceOrAdd(name: name, value: value)
            }
        }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let components = timeout.components
        let nanoseconds = components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
        return try await client.execute(request, timeout: .nanoseconds(max(1, nanoseconds)))
    }
}

extension HTTPExchange {
    /// An answer whose body is read piece by piece as it arrives (server-sent events, say).
    public struct StreamedResponse: Sendable {
        /// The status code.
        public var status: Int
        /// The header fields, in order, as sent.
        public var headers: [(name: String, value: String)]
        let body: HTTPClientResponse.Body

        /// Hands each piece of the body to `consume` as it arrives.
        public func forEachPiece(_ consume: (ByteBuffer) async throws -> Void) async throws {
            for try await piece in body { try await consume(piece) }
        }

        /// Hands each line of the body (its bytes, without the newline) to `consume` as soon as
        /// the line is complete; a last piece without a newline is not a line.
        public func forEachLine(_ consume: ([UInt8]) async throws -> Void) async throws {
            var line: [UInt8] = []
            for try await piece in body {
                for byte in piece.readableBytesView {
                    guard byte == UInt8(ascii: "\n") else {
                        line.append(byte)
                        continue
                    }
                    try await consume(line)
                    line.removeAll(keepingCapacity: true)
                }
            }
        }

        /// Reads the body as server-sent events: hands each event's name (`message` when it
        /// has none) and data (its `data:` lines, joined by newlines) to `consume`. Comments and
        /// events without data are skipped.
        public func forEachEvent(_ consume: (_ event: String, _ data: String) async throws -> Void) async throws {
            // Bytes until a blank line ends an event, so that a character split between two
            // pieces is decoded whole; carriage returns (CRLF line ends) are dropped.
            var pending: [UInt8] = []
            for try await piece in body {
                for byte in piece.readableBytesView where byte != UInt8(ascii: "\r") {
                    pending.append(byte)
                    guard byte == UInt8(ascii: "\n"), pending.count >= 2, pending[pending.count - 2] == byte else { continue }
                    var event = "message"
                    var data: [Substring] = []
                    for line in String(decoding: pending, as: UTF8.self).split(separator: "\n") {
                        if line.hasPrefix("event:") { event = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                        if line.hasPrefix("data:") { data.append(line.dropFirst(line.hasPrefix("data: ") ? 6 : 5)) }
                    }
                    pending.removeAll(keepingCapacity: true)
                    if !data.isEmpty { try await consume(event, data.joined(separator: "\n")) }
                }
            }
        }

        /// The whole body, up to `limit` bytes.
        public func collect(upTo limit: Int = HTTPExchange.maximumBodySize) async throws -> Data {
            Data(buffer: try await body.collect(upTo: limit))
        }
    }

    /// Sends a request and returns once the answer's head has arrived; its body is read from
    /// the returned value. Header fields are sent as given, repeated ones included.
    ///
    /// - Throws: AsyncHTTPClient's error when there is no answer (refused, reset, timed out).
    public static func stream(
        _ method: String,
        _ url: URL,
        headers: [(String, String)] = [],
        body: Data? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> StreamedResponse {
        let response = try await execute(method, url, headers: headers, body: body, timeout: timeout,
            keepsRepeatedHeaders: true)
        return StreamedResponse(
            status: Int(response.status.code),
            headers: response.headers.map { ($0.name, $0.value) },
            body: response.body
        )
    }
}
