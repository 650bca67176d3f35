import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct TestDatabaseTests {
    @Test func createsAnIsolatedDatabaseAndDropsIt() async throws {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: database.url), logger: TestSupport.logger("pg-test"))
        let name = try await pool.withConnection {
            try $0.query("SELECT current_database() AS name").rows[0].string("name")
        }
        await pool.shutdown()
        #expect(name == database.name)
        await database.drop()
        let probe = PostgresPool(
            configuration: PostgresConfiguration(url: database.url), logger: TestSupport.logger("pg-test"))
        #expect(await !probe.ping())
        await probe.shutdown()
    }

    @Test func appliesTheGivenMigrations() async throws {
        let database = try await TestDatabase.create(migrations: [
            Migration(version: 1, name: "t", sql: "CREATE TABLE t (id int)")
        ])
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: database.url), logger: TestSupport.logger("pg-test"))
        #expect(try await pool.withConnection { try $0.query("SELECT count(*) AS n FROM t").rows[0].int("n") } == 0)
        await pool.shutdown()
        await database.drop()
    }

    @Test func defaultDatabasesCarryTheRepositorysMigrations() async throws {
        let migrations = try TestSupport.repositoryMigrations()
        let databases = try await [TestDatabase.create(), TestDatabase.create()]
        for database in databases {
            let pool = PostgresPool(
                configuration: PostgresConfiguration(url: database.url), logger: TestSupport.logger("pg-test"))
            let status = try await Migrator(migrations: migrations).status(pool)
            let devices = try await pool.withConnection {
                try $0.query("SELECT to_regclass('devices') IS NOT NULL AS present").rows[0].bool("present")
            }
            await pool.shutdown()
            await database.drop()
            #expect(status == .current)
            #expect(devices)
        }
    }

    @Test func aMissingMigrationsFolderIsAnErrorNotAnEmptySchema() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-migrations-\(UUID())")
        #expect(throws: CocoaError.self) { try TestSupport.repositoryMigrations(in: missing) }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-migrations-\(UUID())")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(throws: TestSupportError.self) { try TestSupport.repositoryMigrations(in: empty) }
    }
}
