import NIOCore
import Synchronization

/// Tells long-lived responses that their client went away.
///
/// Hummingbird allows remote half-closure, so a client closing its connection only shows up as
/// `inputClosed` on the channel (the channel itself stays open until a write fails). This handler,
/// added to every HTTP/1 connection, calls the registered callbacks when the input closes or the
/// channel becomes inactive. Only the realtime stream registers callbacks.
final class ConnectionInputWatcher: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = Any

    private struct State {
        var closed = false
        var callbacks: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// Calls `callback` once the client's input closes (at once if it already has).
    func onInputClosed(_ callback: @escaping @Sendable () -> Void) {
        let closed = state.withLock { state in
            if !state.closed { state.callbacks.append(callback) }
            return state.closed
        }
        if closed { callback() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { close() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        close()
        context.fireChannelInactive()
    }

    private func close() {
        let callbacks = state.withLock { state in
            state.closed = true
            defer { state.callbacks.removeAll() }
            return state.callbacks
        }
        for callback in callbacks { callback() }
    }
}
