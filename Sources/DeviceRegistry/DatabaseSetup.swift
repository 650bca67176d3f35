import Logging
import Postgres
import RegistryCore
import RegistryCrypto
import ServiceLifecycle
import Store

/// What `serve` does with the database before it is ready: preflight (durability settings),
/// migrations, and the `REGISTRY_ADMIN_KEY` bootstrap key.
struct DatabaseSetup: Sendable {
    let migrator: Migrator
    let migrate: Bool
    /// Where migrations run: a session of their own, straight at PostgreSQL (`DATABASE_LISTEN_URL`).
    let sessionConfiguration: PostgresConfiguration
    let allowUnsafeDurability: Bool
    let adminKey: String?

    /// Runs the setup now. When the database cannot be reached it returns a service that retries
    /// in the background instead, so the server still starts (and `/readyz` answers 503 until the
    /// setup is done). Anything else (an edited migration, unsafe durability) throws.
    func runOrDefer(pool: PostgresPool, logger: Logger) async throws -> RetryingDatabaseSetup? {
        let secret = try adminKey.map { key in
            guard let secret = APIKeySecret.parse(key) else {
                throw ConfigurationError(
                    "REGISTRY_ADMIN_KEY must be drk_ followed by 43 base64url characters (see README)")
            }
            return secret
        }
        do {
            try await run(pool: pool, adminKeyHash: secret?.hashHex, logger: logger)
            return nil
        } catch let error where Self.isTransient(error) {
            logger.warning("database unreachable at start; serving with /readyz at 503 until it answers")
            return RetryingDatabaseSetup(setup: self, pool: pool, adminKeyHash: secret?.hashHex, logger: logger)
        }
    }

    func run(pool: PostgresPool, adminKeyHash: String?, logger: Logger) async throws {
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

/// Retries `DatabaseSetup` with capped backoff until it succeeds or the service shuts down.
struct RetryingDatabaseSetup: Service {
    let setup: DatabaseSetup
    let pool: PostgresPool
    let adminKeyHash: String?
    let logger: Logger

    func run() async throws {
        var delay = Duration.milliseconds(250)
        while !Task.isCancelled {
            do {
                try await setup.run(pool: pool, adminKeyHash: adminKeyHash, logger: logger)
                logger.info("database setup complete")
                return
            } catch let error where DatabaseSetup.isTransient(error) {
                let wait = delay
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
                delay = min(delay * 2, .seconds(5))
            }
        }
    }
}
