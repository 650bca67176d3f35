import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Handles one HTTP/2 stream (through NIO's HTTP/1 view of it): collects the request, asks the
/// router, then answers — after the scripted delay, or by sending GOAWAY or dropping the
/// connection instead.
final class MockStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let router: MockRouter
    private let connection: Int
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(router: MockRouter, connection: Int) {
        self.router = router
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return }
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let request = MockRequest(
                method: head.method.rawValue, path: head.uri, headers: headers, body: body, connection: connection)
            let answer = router.respond(to: request)
            if let delay = answer.delay {
                context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay / .nanoseconds(1)))) {
                    self.perform(answer, context: context)
                }
            } else {
                perform(answer, context: context)
            }
        }
    }

    private func perform(_ answer: MockAnswer, context: ChannelHandlerContext) {
        switch answer.connectionAction {
        case .goaway?:
            guard let parent = context.channel.parent else { return }
            let streamID =
                (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)) ?? .rootStream
            // The stream before this one is the last processed: this request was not handled.
            let lastProcessed = HTTP2StreamID(max(0, Int(Int32(streamID)) - 2))
            let goAway = HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(lastStreamID: lastProcessed, errorCode: .noError, opaqueData: nil))
            parent.writeAndFlush(goAway).whenComplete { _ in parent.close(promise: nil) }
        case .drop?:
            context.channel.parent?.close(promise: nil)
        case nil:
            var headers = HTTPHeaders(answer.headers)
            headers.add(name: "content-length", value: String(answer.body.count))
            let head = HTTPResponseHead(
                version: .http2, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if !answer.body.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
