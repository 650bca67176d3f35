import Foundation
import HTTPServer
import Logging
import NIOCore
import ServiceLifecycle
import TestSupport

/// Test timeouts: short enough for a fast suite, long enough for a loaded 2-core CI machine.
extension HTTPServerConfiguration {
    static func forTests(
        idleTimeout: TimeAmount = .seconds(5), headerReadTimeout: TimeAmount = .seconds(5),
        bodyReadTimeout: TimeAmount = .seconds(5), maxRequestsPerConnection: Int = 1000,
        shutdownGracePeriod: TimeAmount = .seconds(5), maxConnections: Int = 4096,
        writeTimeout: TimeAmount = .seconds(5)
    ) -> HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: "127.0.0.1", port: 0, maxRequestLineBytes: 1024, maxHeaderBytes: 2048, maxHeaderCount: 16,
            maxBodyBytes: 1024, idleTimeout: idleTimeout, headerReadTimeout: headerReadTimeout,
            bodyReadTimeout: bodyReadTimeout, maxRequestsPerConnection: maxRequestsPerConnection,
            shutdownGracePeriod: shutdownGracePeriod, maxConnections: maxConnections, writeTimeout: writeTimeout)
    }
}

/// A running ``HTTPServer`` on port 0 inside a ServiceGroup, as production runs it.
struct LiveServer: Sendable {
    let server: HTTPServer
    let group: ServiceGroup
    let port: Int

    func connect(timeout: Duration = .seconds(5)) async throws -> HTTPTestClient {
        try await HTTPTestClient.connect(port: port, timeout: timeout)
    }

    func shutDownGracefully() async {
        await group.triggerGracefulShutdown()
    }
}

/// Starts the server, runs `body`, and always shuts the server down and waits for `run()`.
func withLiveServer<T: Sendable>(
    _ configuration: HTTPServerConfiguration = .forTests(), router: Router = testRouter(),
    logger: Logger = .quiet, observer: (any RequestObserver)? = nil,
    _ body: (LiveServer) async throws -> T
) async throws -> T {
    let server = HTTPServer(configuration: configuration, router: router, logger: logger, observer: observer)
    let group = ServiceGroup(
        configuration: .init(services: [server], gracefulShutdownSignals: [], cancellationSignals: [], logger: .quiet))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            let port = try await server.localAddress.port ?? 0
            let result = try await body(LiveServer(server: server, group: group, port: port))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        } catch {
            tasks.cancelAll()
            throw error
        }
    }
}

extension Logger {
    /// Silent unless HTTP_TEST_LOG is set, so the suite stays quiet.
    static var quiet: Logger {
        if ProcessInfoEnvironment.wantsLogs {
            var logger = Logger(label: "http-test")
            logger.logLevel = .debug
            return logger
        }
        return Logger(label: "http-test") { _ in SwiftLogNoOpLogHandler() }
    }
}

enum ProcessInfoEnvironment {
    static let wantsLogs = getenv("HTTP_TEST_LOG") != nil
}
