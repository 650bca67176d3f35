import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2

/// Sits after the HTTP/2 handler, which passes it the connection-level frames: learns the
/// server's stream limit from SETTINGS (the first one makes the connection `ready`, so no stream
/// is counted against a limit not yet known) and retires the connection on GOAWAY or close, so
/// no new stream is opened on a connection that is going away.
///
/// It also checks an idle connection's health, as Apple recommends: when nothing has moved for
/// the ping interval (an `IdleStateHandler` at the front of the pipeline says so) it sends a
/// PING; if the connection is still silent one interval later, the PING went unanswered and the
/// connection is closed, so no push is sent into a dead connection.
final class ConnectionObserver: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let state: NIOLockedValueBox<ConnectionState>
    private let ready: EventLoopPromise<Void>
    private var pingOutstanding = false

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
        case .ping(_, ack: true):
            pingOutstanding = false
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .all? = event as? IdleStateHandler.IdleStateEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if pingOutstanding {
            state.withLockedValue { $0.retired = true }
            context.close(promise: nil)
        } else {
            pingOutstanding = true
            let ping = HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 1), ack: false))
            context.writeAndFlush(wrapOutboundOut(ping), promise: nil)
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
