import ArgumentParser
import Foundation
import Logging
import Postgres

/// The database options every command that touches PostgreSQL shares.
struct DatabaseOptions: ParsableArguments {
    @Option(
        help:
            "libpq connection URI, e.g. postgresql://user@host:5432/db. (env: DATABASE_URL or DATABASE_URL_FILE, required)"
    )
    var databaseURL: String?

    @Option(
        help:
            "A URL straight to PostgreSQL for what needs a session of its own: the LISTEN for key revocations and the migrations' lock. Set it when DATABASE_URL goes through PgBouncer; without it the key cache is off there and migrations refuse to run. (env: DATABASE_LISTEN_URL or DATABASE_LISTEN_URL_FILE, default: DATABASE_URL)"
    )
    var databaseListenURL: String?

    @Option(
        help:
            "on, off or auto: named prepared statements, which a transaction-pooling PgBouncer cannot keep; auto turns them off when the connection goes through a pooler. (env: DATABASE_PREPARED_STATEMENTS, default: auto)"
    )
    var databasePreparedStatements: PreparedStatements?

    @Option(
        help:
            "A streaming replica for listings, lookups and export, used for a read once it has replayed the writes the read must see (the Registry-Consistency token sent, this instance's writes to that user) and lags at most --database-read-max-lag-ms; else (or when it is down) the primary. (env: DATABASE_READ_URL or DATABASE_READ_URL_FILE, default: none)"
    )
    var databaseReadURL: String?

    @Option(
        help:
            "How far behind the primary the replica may be, in milliseconds, and still serve reads. (env: DATABASE_READ_MAX_LAG_MS, default: 1000)"
    )
    var databaseReadMaxLagMs: Int?

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

    @Option(
        help:
            "How long a migration waits for a table lock, in milliseconds, before it gives up (so requests are not queued behind it) and is retried. (env: MIGRATION_LOCK_TIMEOUT_MS, default: 5000)"
    )
    var migrationLockTimeoutMs: Int?

    func configuration() throws -> PostgresConfiguration {
        guard let url = try Setting.secret(databaseURL, env: "DATABASE_URL") else {
            throw ConfigurationError(
                "DATABASE_URL (or --database-url) is required, e.g. postgresql://postgres@127.0.0.1:5432/device_registry"
            )
        }
        var configuration = PostgresConfiguration(url: url)
        configuration.preparedStatements = try Setting.resolve(
            databasePreparedStatements, env: "DATABASE_PREPARED_STATEMENTS", default: .auto)
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

    /// `configuration()` with `DATABASE_LISTEN_URL`, when given, in place of `DATABASE_URL`: for the
    /// listener and the migrations, which need a session of their own (not one through PgBouncer).
    func sessionConfiguration() throws -> PostgresConfiguration {
        var configuration = try configuration()
        if let url = try Setting.secret(databaseListenURL, env: "DATABASE_LISTEN_URL") { configuration.url = url }
        return configuration
    }

    /// The replica's pool configuration and lag bound, when `DATABASE_READ_URL` is set.
    func readReplica() throws -> (configuration: PostgresConfiguration, maxLag: Duration)? {
        guard let url = try Setting.secret(databaseReadURL, env: "DATABASE_READ_URL") else { return nil }
        var configuration = try configuration()
        configuration.url = url
        let maxLag = try Setting.resolve(
            databaseReadMaxLagMs, env: "DATABASE_READ_MAX_LAG_MS", default: 1000, valid: { $0 > 0 },
            expected: "a positive number of milliseconds")
        return (configuration, .milliseconds(maxLag))
    }

    /// The migrations (`MIGRATIONS_DIR` or the ones compiled in) and how they wait for locks.
    func migrator() throws -> Migrator {
        var migrator = Migrator(
            migrations: try ResourceLocator.migrations(override: Setting.optional(migrationsDir, env: "MIGRATIONS_DIR"))
        )
        migrator.lockTimeout = .milliseconds(
            try Setting.resolve(
                migrationLockTimeoutMs, env: "MIGRATION_LOCK_TIMEOUT_MS", default: 5000, valid: { $0 > 0 },
                expected: "a positive number of milliseconds"))
        return migrator
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

extension PreparedStatements: ExpressibleByArgument {}
