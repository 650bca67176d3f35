import NIOCore

/// Sent inbound when the first byte of a request head arrives (starts the header-read timeout).
struct RequestHeadStarted: Sendable {}

/// Runs ``RequestFramer`` over the raw bytes in front of the HTTP decoder.
///
/// Bytes are forwarded in pieces split at head starts, so ``RequestHeadStarted`` reaches the
/// next handlers after the previous request's `.end` and before the new `.head`. A rejection is
/// sent as an error after the bytes before it; the connection's reader answers it in order
/// (after any pipelined responses) and closes. Everything after a rejection is dropped.
final class RequestFramingHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var framer: RequestFramer
    private var rejected = false

    init(limits: RequestFramer.Limits) {
        self.framer = RequestFramer(limits: limits)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !rejected else { return }
        let buffer = Self.unwrapInboundIn(data)
        // The first event of the read inline, any others (pipelined heads) in an array: nearly
        // every read starts at most one head, and an array per read allocated per request.
        var first: RequestFramer.Event?
        var more: [RequestFramer.Event] = []
        buffer.withUnsafeReadableBytes { bytes in
            framer.scan(bytes) { event in
                if first == nil { first = event } else { more.append(event) }
            }
        }
        guard let first else {
            context.fireChannelRead(data)
            return
        }
        var forwarded = 0
        func forward(upTo offset: Int) {
            guard offset > forwarded,
                let slice = buffer.getSlice(at: buffer.readerIndex + forwarded, length: offset - forwarded)
            else { return }
            forwarded = offset
            context.fireChannelRead(Self.wrapInboundOut(slice))
        }
        /// False once the event was a rejection: nothing after it is forwarded.
        func pass(_ event: RequestFramer.Event) -> Bool {
            switch event {
            case .headStarted(let offset):
                forward(upTo: offset)
                context.fireUserInboundEventTriggered(RequestHeadStarted())
                return true
            case .rejected(let offset, let rejection):
                forward(upTo: offset)
                rejected = true
                context.fireErrorCaught(rejection)
                return false
            }
        }
        guard pass(first) else { return }
        for event in more {
            guard pass(event) else { return }
        }
        forward(upTo: buffer.readableBytes)
    }
}
