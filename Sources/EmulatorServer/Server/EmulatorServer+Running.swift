import Foundation
import Hummingbird
import ServiceLifecycle

extension EmulatorServer {
    /// Serves on the configured address (port 0 picks a free one) while `body` runs, then stops
    /// the server and any deployed worker: the emulator inside a test or a tool.
    ///
    /// - Parameter body: gets the base URL, e.g. `http://127.0.0.1:53817`, once requests are accepted.
    public func withRunning<T: Sendable>(_ body: @Sendable (URL) async throws -> T) async throws -> T {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = application { portContinuation.yield($0) }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.run() }
            defer {
                deployments.stop()
                group.cancelAll()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            return try await body(URL(string: "http://\(configuration.host):\(port)")!)
        }
    }
}
