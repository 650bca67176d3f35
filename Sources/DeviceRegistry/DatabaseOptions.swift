import ArgumentParser
import Foundation
import Logging
import Postgres

/// The database options every command that touches PostgreSQL shares.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "libpq connection URI, e.g. postgresql://user@host:5432/db. (env: DATABASE_URL, required)")
    var databaseURL: String?

    @Option(help: "Connections in the pool. (env: DB_POOL_SIZE, default: 10)")
    var dbPoolSize: Int?

    @Option(
        help:
            "Of the pool's connections, how many run group-commit write batches at once; fewer means larger batches. (env: DB_WRITE_CONNECTIONS, default: 1)"
    )
    var dbWriteConnections: Int?

    @Option(
        help:
            "Of the pool's connections, how many run batched reads (a user's devices) at once. (env: DB_READ_CONNECTIONS, default: 2)"
    )
    var dbReadConnections: Int?

    @Option(help: "Per-statement deadline in milliseconds. (env: DB_STATEMENT_TIMEOUT_MS, default: 1000)")
    var dbStatementTimeoutMs: Int?

    @Option(help: "Connect timeout in milliseconds. (env: DB_CONNECT_TIMEOUT_MS, default: 2000)")
    var dbConnectTimeoutMs: Int?

    @Option(
        help:
            "How long a request waits for a free connection, in milliseconds; then 503. (env: DB_POOL_WAIT_TIMEOUT_MS, default: 500)"
    )
    var dbPoolWaitTimeoutMs: Int?

    @Option(
        help:
            "Folder of NNNN_what.sql migrations to use instead of the ones compiled in. (env: MIGRATIONS_DIR, default: compiled in)"
    )
    var migrationsDir: String?

    func configuration() throws -> PostgresConfiguration {
        guard let url = Setting.optional(databaseURL, env: "DATABASE_URL") else {
            throw ConfigurationError(
                "DATABASE_URL (or --database-url) is required, e.g. postgresql://postgres@127.0.0.1:5432/device_registry"
            )
        }
        var configuration = PostgresConfiguration(url: url)
        configuration.poolSize = try Setting.resolve(
            dbPoolSize, env: "DB_POOL_SIZE", default: 10, valid: { (1...500).contains($0) }, expected: "1–500")
        configuration.writeConnections = try Setting.resolve(
            dbWriteConnections, env: "DB_WRITE_CONNECTIONS", default: 1, valid: { (1...500).contains($0) },
            expected: "1–500")
        configuration.readConnections = try Setting.resolve(
            dbReadConnections, env: "DB_READ_CONNECTIONS", default: 2, valid: { (1...500).contains($0) },
            expected: "1–500")
        configuration.statementTimeout = .milliseconds(
            try Setting.resolve(
                dbStatementTimeoutMs, env: "DB_STATEMENT_TIMEOUT_MS", default: 1000, valid: { $0 > 0 },
                expected: "a positive number of milliseconds"))
        configuration.connectTimeout = .milliseconds(
            try Setting.resolve(
                dbConnectTimeoutMs, env: "DB_CONNECT_TIMEOUT_MS", default: 2000, valid: { $0 >= 1000 },
                expected: "at least 1000 milliseconds (libpq counts whole seconds)"))
        configuration.poolWaitTimeout = .milliseconds(
            try Setting.resolve(
                dbPoolWaitTimeoutMs, env: "DB_POOL_WAIT_TIMEOUT_MS", default: 500, valid: { $0 > 0 },
                expected: "a positive number of milliseconds"))
        return configuration
    }

    func migrations() throws -> [Migration] {
        try ResourceLocator.migrations(override: Setting.optional(migrationsDir, env: "MIGRATIONS_DIR"))
    }

    /// Runs a one-shot command's work with a pool that is closed afterwards, whatever happens.
    func withPool<T>(logger: Logger, _ body: (PostgresPool) async throws -> T) async throws -> T {
        let pool = PostgresPool(configuration: try configuration(), logger: logger)
        do {
            let result = try await body(pool)
            await pool.shutdown()
            return result
        } catch {
            await pool.shutdown()
            throw error
        }
    }
}
