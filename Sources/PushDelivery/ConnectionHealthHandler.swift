import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2

/// Applies `ConnectionHealth` to one connection. It sits first in the pipeline, so every byte
/// read counts as life whichever stream it belongs to; it ticks on the event loop, sends the
/// PINGs the rule asks for (down the whole pipeline, so the HTTP/2 handler frames them), and
/// retires and closes a connection the rule declares dead, which fails its open streams at once
/// instead of at their timeouts.
final class ConnectionHealthHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var health: ConnectionHealth
    private let state: NIOLockedValueBox<ConnectionState>
    private var context: ChannelHandlerContext?
    private var nextTick: Scheduled<Void>?
    /// Senders whose stream timed out, waiting to learn whether the connection is alive.
    private var probes: [EventLoopPromise<Bool>] = []

    init(health: ConnectionHealth, state: NIOLockedValueBox<ConnectionState>) {
        self.health = health
        self.state = state
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { startTicking(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        health.read(at: context.eventLoop.now)  // The clock starts with the connection.
        startTicking(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        health.read(at: context.eventLoop.now)
        answerProbes(alive: true)
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    /// Completes `promise` with whether the connection is alive: true at the next byte read,
    /// false when it is declared dead or closes. Sends a PING at once when none is out.
    func probe(_ promise: EventLoopPromise<Bool>) {
        guard let context, context.channel.isActive, !health.isDead else { return promise.succeed(false) }
        probes.append(promise)
        perform(health.streamTimedOut(at: context.eventLoop.now), context)
    }

    private func startTicking(_ context: ChannelHandlerContext) {
        guard nextTick == nil else { return }
        scheduleTick(context)
    }

    private func scheduleTick(_ context: ChannelHandlerContext) {
        nextTick = context.eventLoop.assumeIsolated().scheduleTask(in: health.tickInterval) { [self] in
            perform(health.tick(at: context.eventLoop.now, openStreams: state.withLockedValue(\.openStreams)), context)
            if !health.isDead { scheduleTick(context) }
        }
    }

    private func perform(_ action: ConnectionHealth.Action, _ context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .ping:
            let ping = HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 1), ack: false))
            context.channel.writeAndFlush(ping, promise: nil)
        case .retire:
            stop()
            context.close(promise: nil)
        }
    }

    private func stop() {
        state.withLockedValue { $0.retired = true }
        nextTick?.cancel()
        answerProbes(alive: false)
    }

    private func answerProbes(alive: Bool) {
        let waiting = probes
        probes.removeAll()
        for probe in waiting { probe.succeed(alive) }
    }
}
