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
        let text = "\(error)"
        ready.fail(
            Self.refusesClientCertificate(text) ? ConnectionFailure.clientCertificateRefused : .connect("TLS: \(text)"))
        context.fireErrorCaught(error)
    }

    /// An alert the server sent about our certificate, as the TLS library names it
    /// (`SSLV3_ALERT_BAD_CERTIFICATE`, `TLSV1_ALERT_UNKNOWN_CA`, `…_CERTIFICATE_REQUIRED`…), not
    /// our own verdict on the server's certificate (`CERTIFICATE_VERIFY_FAILED`).
    static func refusesClientCertificate(_ error: String) -> Bool {
        error.contains("ALERT_") && (error.contains("CERTIFICATE") || error.contains("UNKNOWN_CA"))
    }

    func channelInactive(context: ChannelHandlerContext) {
        ready.fail(ConnectionFailure.connect("closed during the TLS handshake"))
        context.fireChannelInactive()
    }
}
