import Foundation
import Postgres
import TestSupport

/// A pool on a fresh, empty database; both are shut down and dropped after `body`, also when it throws.
func withPool<T>(
    _ settings: PoolSettings = PoolSettings(),
    _ body: (PostgresPool) async throws -> T
) async throws -> T {
    let database = try await TestDatabase.create(migrations: [])
    let pool = PostgresPool(
        configuration: settings.configuration(url: database.url), logger: TestSupport.logger("pg-test"))
    do {
        let value = try await body(pool)
        await pool.shutdown()
        await database.drop()
        return value
    } catch {
        await pool.shutdown()
        await database.drop()
        throw error
    }
}

/// Same, on a `ThrowawayCluster` that the test may stop, restart or freeze.
func withCluster<T>(
    serverOptions: [String] = [],
    _ settings: PoolSettings = PoolSettings(),
    _ body: (ThrowawayCluster, PostgresPool) async throws -> T
) async throws -> T {
    let cluster = try await ThrowawayCluster.start(serverOptions: serverOptions)
    let pool = PostgresPool(
        configuration: settings.configuration(url: cluster.url), logger: TestSupport.logger("pg-test"))
    do {
        let value = try await body(cluster, pool)
        await pool.shutdown()
        await cluster.destroy()
        return value
    } catch {
        await pool.shutdown()
        await cluster.destroy()
        throw error
    }
}

/// What a test changes from the default configuration; each pool gets its own application_name.
struct PoolSettings {
    var statementTimeout: Duration?
    var poolSize: Int?
    var poolWaitTimeout: Duration?
    /// Appended to the URL, e.g. `?options=…`.
    var urlSuffix = ""

    func configuration(url: String) -> PostgresConfiguration {
        var configuration = PostgresConfiguration(url: url + urlSuffix, applicationName: "pg-test-\(UUID())")
        if let statementTimeout { configuration.statementTimeout = statementTimeout }
        if let poolSize { configuration.poolSize = poolSize }
        if let poolWaitTimeout { configuration.poolWaitTimeout = poolWaitTimeout }
        return configuration
    }
}

/// Runs `body` and returns how long it took and what it threw, if anything.
func measure(_ body: () async throws -> Void) async -> (elapsed: Duration, error: (any Error)?) {
    let start = ContinuousClock.now
    do {
        try await body()
        return (.now - start, nil)
    } catch {
        return (.now - start, error)
    }
}

/// Whether `condition` holds within `timeout` (`TestSupport.waitUntil`, as a value to expect).
func eventually(within timeout: Duration, _ condition: () async -> Bool) async -> Bool {
    (try? await TestSupport.waitUntil("condition", within: timeout, every: .milliseconds(20), condition)) != nil
}
