import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy that puts the faults of the field between a client and a server: it forwards
/// bytes both ways until told to black-hole the connections open now (stop forwarding without
/// closing, as a NAT or load balancer that forgot them does), reset them, or delay everything.
/// It knows nothing of TLS or HTTP/2, so the client's certificate checks see the server itself.
/// Tests start it in-process; `scripts/bench ring --faults` runs it in `mock-push --fault-proxy-port`
/// and black-holes with a signal.
public final class FaultProxy: Sendable {
    private struct Links {
        var open: [ProxyLink] = []
        var accepted = 0
    }

    private let channel: any Channel
    private let links: NIOLockedValueBox<Links>
    private let delay: NIOLockedValueBox<Duration?>
    /// The bound port.
    public let port: Int

    private init(channel: any Channel, links: NIOLockedValueBox<Links>, delay: NIOLockedValueBox<Duration?>) {
        self.channel = channel
        self.links = links
        self.delay = delay
        port = channel.localAddress?.port ?? 0
    }

    /// Listens on `127.0.0.1`, `listenPort` (0 picks a free one), and forwards each connection to
    /// `host:port`.
    public static func start(
        listeningOn listenPort: Int = 0, forwardingTo host: String, port: Int,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> FaultProxy {
        let delay = NIOLockedValueBox<Duration?>(nil)
        let links = NIOLockedValueBox(Links())
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { inbound in
                let link = ProxyLink(delay: delay)
                links.withLockedValue {
                    $0.open.removeAll { $0.isClosed }
                    $0.open.append(link)
                    $0.accepted += 1
                }
                // The client's connection is accepted once the server's is up (see `ProxyLink.attach`).
                // Initializers run on the channel's loop, where the handlers are added in place.
                return inbound.eventLoop.makeCompletedFuture {
                    try inbound.pipeline.syncOperations.addHandler(ProxyHandler(link: link, side: .client))
                }.flatMap {
                    ClientBootstrap(group: inbound.eventLoop)
                        .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                        .channelInitializer { outbound in
                            outbound.eventLoop.makeCompletedFuture {
                                try outbound.pipeline.syncOperations.addHandler(ProxyHandler(link: link, side: .server))
                            }
                        }
                        .connect(host: host, port: port)
                        .map { _ in () }
                        .flatMapErrorThrowing { error in
                            inbound.close(promise: nil)
                            throw error
                        }
                }
            }
            .bind(host: "127.0.0.1", port: listenPort).get()
        return FaultProxy(channel: channel, links: links, delay: delay)
    }

    /// Every connection open now stops forwarding, both ways, and stays open: the client sees
    /// a connection that takes writes and never answers. Connections opened later forward.
    public func blackholeOpenConnections() {
        for link in openLinks() { link.blackhole() }
    }

    /// Every connection open now is reset (RST to both ends).
    public func resetOpenConnections() {
        for link in openLinks() { link.reset() }
    }

    /// Holds every byte this long before forwarding it, on open and later connections; nil
    /// forwards at once again.
    public func setDelay(_ duration: Duration?) {
        delay.withLockedValue { $0 = duration }
    }

    /// Connections accepted so far.
    public var connectionsAccepted: Int { links.withLockedValue { $0.accepted } }

    public func shutdown() async throws {
        resetOpenConnections()
        try await channel.close()
    }

    private func openLinks() -> [ProxyLink] {
        links.withLockedValue { $0.open.filter { !$0.isClosed } }
    }
}
