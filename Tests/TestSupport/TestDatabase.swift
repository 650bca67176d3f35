import Foundation
import Postgres

/// A fresh database for one test, on the server `TEST_DATABASE_URL` names. By default it is cloned
/// from a template that already has the repository's `Migrations/` applied, which takes
/// milliseconds instead of re-running every migration.
public struct TestDatabase: Sendable {
    public let name: String
    /// libpq URI of this database.
    public let url: String

    /// `migrations: nil` clones the repository's migrations (and throws when `Migrations/` is
    /// missing or empty); pass a list to get a database with exactly those applied.
    public static func create(migrations: [Migration]? = nil) async throws -> TestDatabase {
        let serverURL = try TestSupport.serverURL()
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let database = TestDatabase(name: name, url: try Self.url(serverURL, database: name))
        let databases = TestDatabaseServer.shared
        if let migrations {
            try await databases.execute("CREATE DATABASE \(name)", on: serverURL)
            try await database.migrate(migrations)
        } else {
            let template = try await databases.template(on: serverURL)
            try await databases.execute("CREATE DATABASE \(name) TEMPLATE \(template)", on: serverURL)
        }
        return database
    }

    /// `body` with a pool on a database of its own, set up by `configure`; the pool is shut down
    /// and the database dropped afterwards, whatever `body` did.
    public static func withPool<T>(
        _ label: String, configure: (inout PostgresConfiguration) -> Void = { _ in },
        _ body: (PostgresPool) async throws -> T
    ) async throws -> T {
        let database = try await create()
        var configuration = PostgresConfiguration(url: database.url)
        configure(&configuration)
        let pool = PostgresPool(configuration: configuration, logger: TestSupport.logger(label))
        let result = await Result.of { try await body(pool) }
        await pool.shutdown()
        await database.drop()
        return try result.get()
    }

    /// Drops the database, closing whatever is still connected to it. Never throws: a leftover
    /// database in a throwaway cluster is harmless.
    public func drop() async {
        guard let serverURL = try? TestSupport.serverURL() else { return }
        try? await TestDatabaseServer.shared.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: serverURL)
    }

    func migrate(_ migrations: [Migration]) async throws {
        guard !migrations.isEmpty else { return }
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: url, poolSize: 1), logger: TestSupport.logger("test-database"))
        do {
            try await Migrator(migrations: migrations).migrate(pool)
        } catch {
            await pool.shutdown()
            throw error
        }
        await pool.shutdown()
    }

    /// `serverURL` with its database replaced by `database`.
    static func url(_ serverURL: String, database: String) throws -> String {
        guard var components = URLComponents(string: serverURL), components.scheme?.hasPrefix("postgres") == true else {
            throw TestSupportError("TEST_DATABASE_URL must be a postgresql:// URI, not \(serverURL)")
        }
        components.path = "/" + database
        return components.string!
    }
}
