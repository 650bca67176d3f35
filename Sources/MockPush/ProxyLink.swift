import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// One proxied connection: the client's channel, the server's, and the fault applied between.
final class ProxyLink: Sendable {
    enum Side {
        case client
        case server
    }

    private struct State {
        var client: (any Channel)?
        var server: (any Channel)?
        var blackholed = false
        var closed = false
        /// When the last bytes each way are released, so a delay never reorders them.
        var toServerReleasedAt = NIODeadline.distantPast
        var toClientReleasedAt = NIODeadline.distantPast
    }

    private let state = NIOLockedValueBox(State())
    private let delay: NIOLockedValueBox<Duration?>

    init(delay: NIOLockedValueBox<Duration?>) {
        self.delay = delay
    }

    var isClosed: Bool { state.withLockedValue { $0.closed } }

    /// The server's end is attached first: the client's connection is accepted only once the
    /// server's is up, so neither side's bytes ever wait for the other end.
    func attach(_ channel: any Channel, as side: Side) {
        state.withLockedValue { state in
            switch side {
            case .client: state.client = channel
            case .server: state.server = channel
            }
        }
    }

    /// Passes `buffer` to the other side, after the delay; drops it when black-holed.
    func forward(_ buffer: ByteBuffer, from side: Side) {
        let delay = delay.withLockedValue { $0 }.map { TimeAmount($0) } ?? .zero
        let now = NIODeadline.now()
        let target: (channel: any Channel, at: NIODeadline)? = state.withLockedValue { state in
            guard !state.blackholed else { return nil }
            switch side {
            case .client:
                guard let server = state.server else { return nil }
                state.toServerReleasedAt = max(now + delay, state.toServerReleasedAt)
                return (server, state.toServerReleasedAt)
            case .server:
                guard let client = state.client else { return nil }
                state.toClientReleasedAt = max(now + delay, state.toClientReleasedAt)
                return (client, state.toClientReleasedAt)
            }
        }
        guard let target else { return }
        if target.at <= now {
            target.channel.writeAndFlush(buffer, promise: nil)
        } else {
            target.channel.eventLoop.scheduleTask(deadline: target.at) {
                target.channel.writeAndFlush(buffer, promise: nil)
            }
        }
    }

    /// One side closed: so does the other, unless the link is black-holed (then nobody can tell).
    func closed(_ side: Side) {
        let other: (any Channel)? = state.withLockedValue { state in
            state.closed = true
            guard !state.blackholed else { return nil }
            return side == .client ? state.server : state.client
        }
        other?.close(promise: nil)
    }

    func blackhole() {
        state.withLockedValue { $0.blackholed = true }
    }

    /// Closes both sides with an RST (SO_LINGER 0) instead of a FIN.
    func reset() {
        let channels = state.withLockedValue { state in
            state.closed = true
            return [state.client, state.server].compactMap { $0 }
        }
        for channel in channels {
            guard let socket = channel as? any SocketOptionProvider else {
                channel.close(promise: nil)
                continue
            }
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
