import Logging
import Metrics
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// Our HTTP/1.1 server: binds, serves the router's routes, and shuts down gracefully.
///
/// Run it in a ServiceLifecycle `ServiceGroup`. On graceful shutdown it stops accepting, lets
/// in-flight requests finish (their responses carry `Connection: close`), closes idle
/// connections (NIOExtras' `ServerQuiescingHelper` tells each one and reports when the last has
/// closed), force-closes what is left after ``HTTPServerConfiguration/shutdownGracePeriod`` and
/// then returns. Cancelling the task closes everything at once. Connections past
/// ``HTTPServerConfiguration/maxConnections`` are closed as soon as they are accepted.
///
/// Handlers should honour task cancellation: a handler still running when the grace period
/// ends is cancelled (its connection is already closed).
///
/// `metricsFactory` is for tests; production leaves it nil and bootstraps `MetricsSystem`.
public final class HTTPServer: Service, Sendable {
    private let configuration: HTTPServerConfiguration
    private let context: ServerContext
    private let eventLoopGroup: any EventLoopGroup
    private let bound = BoundAddress()
    private let connections: ConnectionRegistry

    public init(
        configuration: HTTPServerConfiguration, router: Router, logger: Logger, observer: (any RequestObserver)? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.configuration = configuration
        self.context = ServerContext(
            configuration: configuration, router: router, logger: logger,
            accessLog: AccessLog(logger: logger, observer: observer, metricsFactory: metricsFactory))
        self.eventLoopGroup = eventLoopGroup
        self.connections = ConnectionRegistry(
            maxConnections: configuration.maxConnections, metricsFactory: metricsFactory)
    }

    /// The bound address; waits until `run()` has bound (throws if binding failed).
    public var localAddress: SocketAddress {
        get async throws { try await bound.value }
    }

    public func run() async throws {
        let quiescing = ServerQuiescingHelper(group: eventLoopGroup)
        let server: NIOAsyncChannel<AcceptedConnection, Never>
        do {
            server = try await bind(quiescing: quiescing)
        } catch {
            bound.resolve(.failure(error))
            throw error
        }
        let serverChannel = server.channel
        bound.resolve(serverChannel.localAddress.map { .success($0) } ?? .failure(ChannelError.unknownLocalAddress))
        context.logger.info(
            "http server listening", metadata: ["address": "\(serverChannel.localAddress.map { "\($0)" } ?? "?")"])

        let connections = self.connections
        let gracePeriod = configuration.shutdownGracePeriod
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await withThrowingDiscardingTaskGroup { group in
                    try await server.executeThenClose { inbound in
                        // A connection is answered by its HTTPConnectionHandler; its task here only
                        // waits for it to end, so that run() returns after the last handler did.
                        for try await connection in inbound {
                            group.addTask { await connection.waitUntilEnded() }
                        }
                    }
                    // Accepting has stopped. In-flight requests get the grace period; then their
                    // connections are closed and their handlers cancelled, so run() returns.
                    let allClosed = serverChannel.eventLoop.makePromise(of: Void.self)
                    quiescing.initiateShutdown(promise: allClosed)
                    let deadline = serverChannel.eventLoop.scheduleTask(in: gracePeriod) {
                        allClosed.fail(ChannelError.ioOnClosedChannel)  // any error: "not in time"
                    }
                    let closedInTime = (try? await allClosed.futureResult.get()) != nil
                    deadline.cancel()
                    if !closedInTime {
                        context.logger.info("http server grace period over; closing remaining connections")
                        connections.closeAll()
                        group.cancelAll()
                    }
                }
            } onGracefulShutdown: {
                self.context.logger.info("http server shutting down")
                // Closes the server channel, which ends the accept loop above, and quiesces
                // every connection, including ones accepted from now on.
                quiescing.initiateShutdown(promise: nil)
            }
        } onCancel: {
            serverChannel.close(promise: nil)
            connections.closeAll()
        }
        context.logger.info("http server stopped")
    }

    private func bind(quiescing: ServerQuiescingHelper) async throws -> NIOAsyncChannel<AcceptedConnection, Never> {
        let configuration = self.configuration
        let context = self.context
        let connections = self.connections
        let logger = context.logger
        return try await ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .serverChannelInitializer { channel in
                // Before the bootstrap's own accept handler: a connection over the cap is closed
                // before anything is set up for it, and only admitted ones are quiesced.
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(connections.makeServerChannelHandler())
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try HTTPPipeline.configure(channel, configuration: configuration, logger: logger)
                    let connection = HTTPConnectionHandler(server: context, finished: channel.eventLoop.makePromise())
                    try channel.pipeline.syncOperations.addHandler(connection)
                    return connection.accepted
                }
            }
    }
}
