import NIOCore

/// One end of a `ProxyLink`: hands what it reads to the link and tells it when the end closes.
final class ProxyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let link: ProxyLink
    private let side: ProxyLink.Side

    init(link: ProxyLink, side: ProxyLink.Side) {
        self.link = link
        self.side = side
    }

    func channelActive(context: ChannelHandlerContext) {
        link.attach(context.channel, as: side)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        link.forward(unwrapInboundIn(data), from: side)
    }

    func channelInactive(context: ChannelHandlerContext) {
        link.closed(side)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
