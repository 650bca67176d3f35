import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import HTTPServer

/// The framing guard in front of the real decoder, on an EmbeddedChannel.
@Suite struct RequestFramingHandlerTests {
    /// Records decoded parts and the guard's events in the order they arrive.
    final class Recorder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        var log: [String] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch Self.unwrapInboundIn(data) {
            case .head(let head): log.append("head \(head.uri)")
            case .body(let body): log.append("body \(body.readableBytes)")
            case .end: log.append("end")
            }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is RequestHeadStarted { log.append("started") }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            log.append("error \((error as? RequestRejection)?.status.code ?? 0)")
        }
    }

    private func run(_ text: String) throws -> [String] {
        let recorder = Recorder()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            RequestFramingHandler(
                limits: .init(maxRequestLineBytes: 64, maxHeaderBytes: 128, maxHeaderCount: 4)),
            ByteToMessageHandler(HTTPRequestDecoder()),
            recorder,
        ])
        try channel.writeInbound(ByteBuffer(string: text))
        let log = recorder.log
        _ = try? channel.finish()
        return log
    }

    @Test func eventsArriveInOrderWithTheDecodedParts() throws {
        let log = try run(
            "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhiGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(log == ["started", "head /a", "body 2", "end", "started", "head /b", "end"])
    }

    @Test func aRejectionFollowsTheRequestsBeforeIt() throws {
        let log = try run(
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /" + String(repeating: "x", count: 100)
                + " HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(log == ["started", "head /a", "end", "started", "error 414"])
    }
}
