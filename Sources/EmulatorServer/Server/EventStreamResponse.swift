import Hummingbird
import NIOCore
import ServiceLifecycle

extension Response {
    /// One server-sent event: `event: NAME`, then its data on one line.
    static func eventFrame(_ event: String, data: String) -> String {
        "event: \(event)\ndata: \(data)\n\n"
    }

    /// A server-sent-event response: `opening` (if any), then every frame `produce` yields, with
    /// `keepAlive` every `interval` between them (by default a comment every 15 s, which proxies
    /// and browsers take as traffic). It ends when `produce` returns, when the client goes away
    /// (the next write fails), or on the server's graceful shutdown.
    static func eventStream(
        opening: String? = nil,
        keepAlive: String = ": keep-alive\n\n",
        every interval: Duration = .seconds(15),
        produce: @escaping @Sendable (AsyncStream<String>.Continuation) async -> Void
    ) -> Response {
        let body = ResponseBody { writer in
            let (frames, continuation) = AsyncStream.makeStream(of: String.self)
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        await produce(continuation)
                        continuation.finish()
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try await Task.sleep(for: interval)
                            continuation.yield(keepAlive)
                        }
                    }
                    if let opening { try await writer.write(ByteBuffer(string: opening)) }
                    for await frame in frames { try await writer.write(ByteBuffer(string: frame)) }
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                continuation.finish()
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}
