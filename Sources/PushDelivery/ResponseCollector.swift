import NIOCore
import NIOHTTP1

/// Collects one stream's response and completes `promise` with it; fails it with `.closed` when
/// the stream ends first (reset, GOAWAY, connection lost).
final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<PushHTTPResponse>
    private var response: PushHTTPResponse?

    init(promise: EventLoopPromise<PushHTTPResponse>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            response = PushHTTPResponse(
                status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, body: [])
        case .body(var buffer):
            response?.body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            // No close here: with END_STREAM both ways the stream is closed already, and closing
            // its channel could send a RST_STREAM, which servers count against a rate limit
            // (NIO's allows 200 per 30 s, then answers GOAWAY ENHANCE_YOUR_CALM).
            if let response { promise.succeed(response) } else { promise.fail(ConnectionFailure.closed) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ConnectionFailure.closed)  // No-op when the answer already completed it.
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(ConnectionFailure.closed)
        context.close(promise: nil)
    }
}
