import Hummingbird
import NIOCore

/// The request context of the emulator's routes.
public struct EmulatorRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    let channel: any Channel

    public init(source: Source) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Bodies are limited by ``EmulatorServer/Configuration/maxBodySize`` in the routes.
    public var maxUploadSize: Int { .max }

    /// Calls `callback` when the client disconnects: its input closes (seen by the
    /// ``ConnectionInputWatcher`` the server adds to each connection) or the connection closes.
    /// Never called in socketless (`.router`) tests.
    func onDisconnect(_ callback: @escaping @Sendable () -> Void) async {
        channel.closeFuture.whenComplete { _ in callback() }
        if let watcher = try? await channel.pipeline.handler(type: ConnectionInputWatcher.self).get() {
            watcher.onInputClosed(callback)
        }
    }
}

/// What the emulator's router middleware calls to go on with a request.
typealias EmulatorResponder = (Request, EmulatorRequestContext) async throws -> Response
