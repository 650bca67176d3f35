import API
import Logging
import Postgres
import RegistryCore
import RegistryCrypto
import ServiceLifecycle
import Store

/// What `serve` does with the database before it is ready: preflight (durability settings),
/// migrations, the `REGISTRY_ADMIN_KEY` bootstrap key and the start-up checks.
struct DatabaseSetup: Sendable {
    let migrator: Migrator
    let migrate: Bool
    /// Where migrations run: a session of their own, straight at PostgreSQL (`DATABASE_LISTEN_URL`).
    let sessionConfiguration: PostgresConfiguration
    let allowUnsafeDurability: Bool
    /// The hash of `REGISTRY_ADMIN_KEY`, checked before anything starts.
    let adminKeyHash: String?

    /// `REGISTRY_ADMIN_KEY`'s hash; throws for a key that is not one.
    static func adminKeyHash(_ key: String?) throws -> String? {
        try key.map { key in
            guard let secret = APIKeySecret.parse(key) else {
                throw ConfigurationError(
                    "REGISTRY_ADMIN_KEY must be drk_ followed by 43 base64url characters (docs/configuration.md)")
            }
            return secret.hashHex
        }
    }

    /// Preflight, migrations, the admin key, then `checks` (anything that needs the tables).
    func run(pool: PostgresPool, logger: Logger, checks: @Sendable () async throws -> Void) async throws {
        let server = try await Preflight.check(pool, allowUnsafeDurability: allowUnsafeDurability)
        logger.info("database connected", metadata: ["server_version": "\(server.version)"])
        if migrate {
            for migration in try await Self.migrate(migrator, over: sessionConfiguration, logger: logger) {
                logger.info(
                    "migration applied", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
            }
        }
        let keys = APIKeyStore(pool: pool)
        if let adminKeyHash {
            try await keys.ensure(name: "REGISTRY_ADMIN_KEY", scopes: [.admin], secretHash: adminKeyHash)
        }
        if try await keys.all().isEmpty {
            logger.notice(
                "no API keys yet; create the first with: device-registry keys create --name ops --scope admin")
        }
        try await checks()
    }
}

extension DatabaseSetup {
    /// Migrates over a one-connection pool of its own (`DatabaseOptions.sessionConfiguration()`),
    /// closed afterwards. Through a pooler the migrator refuses, and the message says what to set.
    static func migrate(_ migrator: Migrator, over session: PostgresConfiguration, logger: Logger) async throws
        -> [Migration]
    {
        var configuration = session
        configuration.poolSize = 1
        let pool = PostgresPool(configuration: configuration, logger: logger)
        do {
            let applied = try await migrator.migrate(pool)
            await pool.shutdown()
            return applied
        } catch MigrationError.behindPooler {
            await pool.shutdown()
            throw ConfigurationError(
                "migrations need a session of their own, and the database URL goes through a connection pooler: set DATABASE_LISTEN_URL straight to PostgreSQL"
            )
        } catch {
            await pool.shutdown()
            throw error
        }
    }

    /// Whether the database was only out of reach: the preflight and the migrator speak the
    /// driver's terms, the key store the domain's.
    static func isTransient(_ error: any Error) -> Bool {
        switch error {
        case let error as PostgresError: error.isTransient
        case RegistryError.unavailable: true
        default: false
        }
    }
}

/// Runs `DatabaseSetup` beside the listening server, retrying with capped backoff while the
/// database is out of reach, and turns the instance from `migrating` to `serving` when it is
/// done. A fatal problem (an edited migration, unsafe durability, a wrong master key) ends the
/// service with its error, which stops the process. Graceful shutdown stops it where it is.
struct DatabaseSetupService: Service {
    let setup: DatabaseSetup
    let pool: PostgresPool
    let state: ServingState
    let logger: Logger
    let checks: @Sendable () async throws -> Void

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await setUp() }
        } catch is CancellationError {
            logger.info("database setup stopped by shutdown")
        }
    }

    private func setUp() async throws {
        var delay = Duration.milliseconds(250)
        var warned = false
        while true {
            do {
                try await setup.run(pool: pool, logger: logger, checks: checks)
                state.startServing()
                logger.info("database setup complete; serving")
                return
            } catch let error where DatabaseSetup.isTransient(error) {
                if !warned {
                    logger.warning("database unreachable; serving with /readyz at 503 until it answers")
                    warned = true
                }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }
}
