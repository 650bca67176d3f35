import Postgres

/// A session-level advisory lock on `hashtextextended(key, 0)` held on a connection of its own:
/// whatever takes that lock (`register_device()` for a user, a test's deferred trigger) waits
/// until it is released.
public struct Gate: Sendable {
    /// The session holding the lock, free for a test's own queries meanwhile.
    public let pool: PostgresPool
    public let key: String

    public static func close(_ pool: PostgresPool, key: String) async throws -> Gate {
        var configuration = PostgresConfiguration(url: pool.configuration.url)
        configuration.poolSize = 1
        let gatePool = PostgresPool(configuration: configuration, logger: TestSupport.logger("gate"))
        _ = try await gatePool.withConnection {
            try $0.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [key])
        }
        return Gate(pool: gatePool, key: key)
    }

    /// Closing the session releases its lock.
    public func open() async throws {
        await pool.shutdown()
    }
}
