import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One server-sent event.
struct SSEFrame: Equatable {
    var event: String
    var data: String
}

/// A minimal streaming HTTP client for live tests: sends one `GET` and reads the response head
/// and then SSE frames as they arrive (HummingbirdTesting's clients only return whole bodies).
enum SSETestClient {
    /// Connects to `127.0.0.1:port`, sends `GET uri` with `headers`, runs `body` with a reader of
    /// the response, then closes the connection.
    static func withStream<T: Sendable>(
        port: Int, uri: String, headers: [(String, String)],
        _ body: (inout SSEReader) async throws -> T
    ) async throws -> T {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
            head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
            for (name, value) in headers { head.headers.add(name: name, value: value) }
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var reader = SSEReader(iterator: inbound.makeAsyncIterator())
            return try await body(&reader)
        }
    }
}

/// Reads a streamed response: its head, then frames separated by a blank line.
struct SSEReader {
    var iterator: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    var pending = ""

    /// The response head.
    mutating func head() async throws -> HTTPResponseHead? {
        guard case .head(let head)? = try await iterator.next() else { return nil }
        return head
    }

    /// The next frame; `nil` when the response ends.
    mutating func next() async throws -> SSEFrame? {
        while true {
            if let end = pending.range(of: "\n\n") {
                let text = pending[..<end.lowerBound]
                pending = String(pending[end.upperBound...])
                var frame = SSEFrame(event: "", data: "")
                for line in text.split(separator: "\n") {
                    if line.hasPrefix("event: ") { frame.event = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { frame.data = String(line.dropFirst(6)) }
                }
                return frame
            }
            switch try await iterator.next() {
            case .body(let buffer)?: pending += String(buffer: buffer)
            case .head?: continue
            case .end?, nil: return nil
            }
        }
    }

    /// The next frame that is not a keep-alive.
    mutating func nextChange() async throws -> SSEFrame? {
        while let frame = try await next() {
            if frame.event != "keep-alive" { return frame }
        }
        return nil
    }
}
