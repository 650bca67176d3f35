import NIOCore
import NIOHPACK
import NIOHTTP2

/// Handles one HTTP/2 stream: collects the request from its HEADERS and DATA frames, asks the
/// router, then answers — after the scripted delay, or by sending GOAWAY, dropping the
/// connection or staying silent instead.
///
/// It reads the frames itself rather than through NIO's HTTP/1 view of the stream, because that
/// view refuses a request without `:authority`, and RFC 9113 §8.3.1 lets a client send `host`
/// instead (aioapns does, and APNs answers it). A stream it cannot read is reset, never left
/// hanging.
final class MockStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let router: MockRouter
    private let connection: Int
    private let clientCertificateTopics: [String]?
    private var headers: HPACKHeaders?
    private var body: [UInt8] = []

    init(router: MockRouter, connection: Int, clientCertificateTopics: [String]? = nil) {
        self.router = router
        self.connection = connection
        self.clientCertificateTopics = clientCertificateTopics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            // Trailers after the body carry nothing the mock reads.
            if headers == nil { headers = frame.headers }
            if frame.endStream { requestEnded(context: context) }
        case .data(let frame):
            if case .byteBuffer(var buffer) = frame.data {
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
            if frame.endStream { requestEnded(context: context) }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func requestEnded(context: ChannelHandlerContext) {
        guard let request = headers.flatMap(request(from:)) else {
            context.close(promise: nil)  // No :method or :path: the stream is reset.
            return
        }
        let answer = router.respond(to: request)
        if let delay = answer.delay {
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay / .nanoseconds(1)))) {
                self.perform(answer, context: context)
            }
        } else {
            perform(answer, context: context)
        }
    }

    /// The request, with `:authority` as `host` (or `host` itself when a client sent that).
    private func request(from headers: HPACKHeaders) -> MockRequest? {
        var method: String?
        var path: String?
        var fields: [String: String] = [:]
        for (name, value, _) in headers {
            switch name {
            case ":method": method = value
            case ":path": path = value
            case ":authority": fields["host"] = value
            case let pseudo where pseudo.hasPrefix(":"): continue
            default: fields[name.lowercased()] = value
            }
        }
        guard let method, let path else { return nil }
        return MockRequest(
            method: method, path: path, headers: fields, body: body, connection: connection,
            clientCertificateTopics: clientCertificateTopics)
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
        case .silence?:
            break
        case nil:
            var headers = HPACKHeaders([(":status", String(answer.status))])
            headers.add(contentsOf: answer.headers)
            headers.add(name: "content-length", value: String(answer.body.count))
            context.write(
                wrapOutboundOut(.headers(.init(headers: headers, endStream: answer.body.isEmpty))), promise: nil)
            if !answer.body.isEmpty {
                let data = HTTP2Frame.FramePayload.Data(
                    data: .byteBuffer(ByteBuffer(bytes: answer.body)), endStream: true)
                context.write(wrapOutboundOut(.data(data)), promise: nil)
            }
            context.flush()
        }
    }
}
