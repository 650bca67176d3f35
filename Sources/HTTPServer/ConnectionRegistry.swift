import Metrics
import NIOConcurrencyHelpers
import NIOCore

/// The open connections of a server: admits them up to the cap, and closes whatever is left when
/// the shutdown grace period is over. Quiescing them is `ServerQuiescingHelper`'s job.
final class ConnectionRegistry: Sendable {
    private let maxConnections: Int
    private let rejected: Counter
    private let channels = NIOLockedValueBox([ObjectIdentifier: any Channel]())

    init(maxConnections: Int, metricsFactory: (any MetricsFactory)?) {
        self.maxConnections = maxConnections
        self.rejected = Counter(
            label: "http_connections_rejected_total", factory: metricsFactory ?? MetricsSystem.factory)
    }

    /// Tracks `channel` until it closes. At the cap it is counted and left untracked: the caller
    /// closes it.
    func admit(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let admitted = channels.withLockedValue { open in
            guard open.count < maxConnections else { return false }
            open[id] = channel
            return true
        }
        guard admitted else {
            rejected.increment()
            return false
        }
        channel.closeFuture.whenComplete { _ in
            _ = self.channels.withLockedValue { $0.removeValue(forKey: id) }
        }
        return true
    }

    /// Closes whatever is still open.
    func closeAll() {
        for channel in channels.withLockedValue({ Array($0.values) }) {
            channel.close(promise: nil)
        }
    }

    /// The server channel's handler that applies the cap to each accepted connection before it
    /// is set up, so one past the cap costs an accept and a close, nothing more.
    func makeServerChannelHandler() -> some ChannelHandler { ConnectionCapHandler(registry: self) }
}

private final class ConnectionCapHandler: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let registry: ConnectionRegistry

    init(registry: ConnectionRegistry) { self.registry = registry }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let channel = Self.unwrapInboundIn(data)
        guard registry.admit(channel) else {
            channel.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}
