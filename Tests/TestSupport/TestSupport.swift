import Foundation
import Logging
import NIOPosix
import Postgres

/// What every layer's integration tests share.
public enum TestSupport {
    /// Quiet unless `TEST_LOG_LEVEL` is set (trace, debug, info, notice, warning, error, critical).
    public static func logger(_ label: String) -> Logger {
        guard let name = ProcessInfo.processInfo.environment["TEST_LOG_LEVEL"], let level = Logger.Level(rawValue: name)
        else { return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }) }
        var logger = Logger(label: label, factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = level
        return logger
    }

    /// The repository's root, found from this file's place in it.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The repository's `Migrations/`. Missing or empty is an error, never "no migrations": a test
    /// database without the schema would let schema tests pass without checking anything.
    public static func repositoryMigrations(
        in directory: URL = repositoryRoot.appendingPathComponent("Migrations")
    ) throws -> [Migration] {
        let migrations = try Migrator.load(directory: directory)
        guard !migrations.isEmpty else { throw TestSupportError("no migrations in \(directory.path)") }
        return migrations
    }

    /// A TCP port on 127.0.0.1 that nothing listens on right now.
    public static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port
        try await channel.close()
        guard let port else { throw TestSupportError("could not find a free port") }
        return port
    }

    /// `TEST_DATABASE_URL`, set by `scripts/test`: a superuser on a throwaway cluster.
    static func serverURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["TEST_DATABASE_URL"], !url.isEmpty else {
            throw TestSupportError(
                "TEST_DATABASE_URL is not set. Run the tests with `bash scripts/test` (it starts a throwaway "
                    + "PostgreSQL and sets it), e.g. `bash scripts/test --filter PostgresTests`.")
        }
        return url
    }
}

/// A test environment problem, worded for whoever runs the tests.
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension Result where Failure == any Error {
    /// `Result(catching:)` for an async body.
    public static func of(_ body: () async throws -> Success) async -> Result {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}
