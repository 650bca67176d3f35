import NIOCore
import NIOHPACK
import NIOHTTP2

/// Collects one stream's response from its HEADERS and DATA frames and completes `promise` with
/// it. When the stream ends first it fails it with `.closed` if the server left the stream
/// unprocessed (REFUSED_STREAM, or a GOAWAY below it), and with `.lost` otherwise (reset,
/// connection lost); `HTTP2Connection.send` refines the latter.
final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload

    private let promise: EventLoopPromise<PushHTTPResponse>
    private var response: PushHTTPResponse?

    init(promise: EventLoopPromise<PushHTTPResponse>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            // The first final HEADERS is the response; a later one is trailers, which push services do not send.
            if response == nil, let status = frame.headers.first(name: ":status").flatMap({ Int($0) }), status >= 200 {
                response = PushHTTPResponse(
                    status: status,
                    headers: frame.headers.filter { !$0.name.hasPrefix(":") }.map { ($0.name, $0.value) },
                    body: [])
            }
            if frame.endStream { finish() }
        case .data(let frame):
            if case .byteBuffer(var buffer) = frame.data {
                response?.body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
            if frame.endStream { finish() }
        default:
            break
        }
    }

    /// No close here: with END_STREAM both ways the stream is closed already, and closing its
    /// channel could send a RST_STREAM, which servers count against a rate limit (NIO's allows
    /// 200 per 30 s, then answers GOAWAY ENHANCE_YOUR_CALM).
    private func finish() {
        if let response { promise.succeed(response) } else { promise.fail(ConnectionFailure.lost) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ConnectionFailure.lost)  // No-op when the answer already completed it.
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // NIO closes the streams a GOAWAY left out with CANCEL (its documentation says
        // REFUSED_STREAM, which a server may also send itself): either way, not processed.
        let code = (error as? NIOHTTP2Errors.StreamClosed)?.errorCode
        promise.fail(code == .refusedStream || code == .cancel ? ConnectionFailure.closed : ConnectionFailure.lost)
        context.close(promise: nil)
    }
}
