import NIOCore
import NIOTLS

/// Fails the connection's `ready` promise when the TLS handshake fails (an untrusted
/// certificate, a wrong host name) or the server will not speak HTTP/2 (ALPN), so connecting
/// reports these instead of the first request timing out. `ConnectionObserver` succeeds it.
final class TLSHandshakeObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let ready: EventLoopPromise<Void>

    init(ready: EventLoopPromise<Void>) {
        self.ready = ready
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated) = event as? TLSUserEvent {
            if negotiated != "h2" {
                ready.fail(ConnectionFailure.connect("the server did not agree to HTTP/2 (ALPN h2)"))
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        ready.fail(ConnectionFailure.connect("TLS: \(error)"))
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ready.fail(ConnectionFailure.connect("closed during the TLS handshake"))
        context.fireChannelInactive()
    }
}
