import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// Our HTTP/1.1 server: binds, serves the router's routes, and shuts down gracefully.
///
/// Run it in a ServiceLifecycle `ServiceGroup`. On graceful shutdown it stops accepting, lets
/// in-flight requests finish (their responses carry `Connection: close`), closes idle
/// connections, force-closes what is left after ``HTTPServerConfiguration/shutdownGracePeriod``
/// and then returns. Cancelling the task closes everything at once.
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
    private let connections = ConnectionRegistry()

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
    }

    /// The bound address; waits until `run()` has bound (throws if binding failed).
    public var localAddress: SocketAddress {
        get async throws { try await bound.value }
    }

    public func run() async throws {
        let server: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
        do {
            server = try await bind()
        } catch {
            bound.resolve(.failure(error))
            throw error
        }
        let serverChannel = server.channel
        bound.resolve(serverChannel.localAddress.map { .success($0) } ?? .failure(ChannelError.unknownLocalAddress))
        context.logger.info(
            "http server listening", metadata: ["address": "\(serverChannel.localAddress.map { "\($0)" } ?? "?")"])

        let connections = self.connections
        let gracePeriod = Duration.nanoseconds(configuration.shutdownGracePeriod.nanoseconds)
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await withThrowingDiscardingTaskGroup { group in
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            let executor = EventLoopTaskExecutor(eventLoop: connection.channel.eventLoop)
                            group.addTask(executorPreference: executor) {
                                await HTTPConnection(channel: connection, context: self.context).serve()
                            }
                        }
                    }
                    // Accepting has stopped. In-flight requests get the grace period; then their
                    // connections are closed and their handlers cancelled, so run() returns.
                    connections.quiesceAll()
                    if await !connections.waitUntilAllClosed(timeout: gracePeriod) {
                        context.logger.info("http server grace period over; closing remaining connections")
                        connections.closeAll()
                        group.cancelAll()
                    }
                }
            } onGracefulShutdown: {
                self.context.logger.info("http server shutting down")
                serverChannel.close(promise: nil)
                connections.quiesceAll()
            }
        } onCancel: {
            serverChannel.close(promise: nil)
            connections.closeAll()
        }
        context.logger.info("http server stopped")
    }

    private func bind() async throws -> NIOAsyncChannel<
        NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never
    > {
        let configuration = self.configuration
        let connections = self.connections
        let logger = context.logger
        return try await ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try HTTPPipeline.configure(channel, configuration: configuration, logger: logger)
                    connections.add(channel)
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel)
                }
            }
    }
}
