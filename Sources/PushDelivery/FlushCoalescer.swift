import NIOCore

/// Sits between TLS and HTTP/2 on a push connection and turns the flushes of one event-loop turn
/// into one: every push's stream flushes on its own, and each flush would otherwise be its own
/// TLS record and `sendmsg` — at thousands of pushes a second, more CPU than the pushes. The
/// flush runs after the tasks already queued on the loop, so the streams they open go out with
/// it; a push waits at most that turn.
final class FlushCoalescer: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer

    private var flushPending = false

    func flush(context: ChannelHandlerContext) {
        guard !flushPending else { return }
        flushPending = true
        context.eventLoop.assumeIsolated().execute {
            self.flushPending = false
            context.flush()
        }
    }
}
