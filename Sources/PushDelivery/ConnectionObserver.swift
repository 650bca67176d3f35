import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2

/// Sits after the HTTP/2 handler, which passes it the connection-level frames: learns the
/// server's stream limit from SETTINGS (the first one makes the connection `ready`, so no stream
/// is counted against a limit not yet known) and retires the connection on GOAWAY or close, so
/// no new stream is opened on a connection that is going away. Whether a silent connection is
/// dead is `ConnectionHealthHandler`'s job.
final class ConnectionObserver: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let state: NIOLockedValueBox<ConnectionState>
    private let ready: EventLoopPromise<Void>

    init(state: NIOLockedValueBox<ConnectionState>, ready: EventLoopPromise<Void>) {
        self.state = state
        self.ready = ready
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            if let limit = settings.last(where: { $0.parameter == .maxConcurrentStreams }) {
                state.withLockedValue { $0.maximumStreams = limit.value }
            }
            ready.succeed()
        case .goAway:
            state.withLockedValue { $0.retired = true }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.withLockedValue { $0.retired = true }
        ready.fail(ConnectionFailure.closed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A connection-level error ends the connection; streams learn it from their own channels.
        state.withLockedValue { $0.retired = true }
        context.close(promise: nil)
    }
}
