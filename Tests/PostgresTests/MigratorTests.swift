import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct MigratorTests {
    let first = Migration(version: 1, name: "create_things", sql: "CREATE TABLE things (id int PRIMARY KEY);")
    let second = Migration(
        version: 2, name: "add_label",
        sql: "ALTER TABLE things ADD COLUMN label text; INSERT INTO things VALUES (1, 'a');")

    @Test func appliesInOrderOnceAndRecordsChecksums() async throws {
        try await withPool { pool in
            let migrator = Migrator(migrations: [second, first])
            #expect(try await migrator.status(pool) == .pending(2))
            #expect(try await migrator.migrate(pool).map(\.version) == [1, 2])
            #expect(try await migrator.migrate(pool).isEmpty, "a second run is a no-op")
            #expect(try await migrator.status(pool) == .current)
            let recorded = try await pool.withConnection { connection in
                try connection.query(
                    "SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version"
                )
                .rows.map { [try $0.string("version"), try $0.string("name"), try $0.string("checksum")] }
            }
            #expect(recorded == [["1", "create_things", first.checksum], ["2", "add_label", second.checksum]])
        }
    }

    @Test func refusesAnAppliedMigrationThatChanged() async throws {
        try await withPool { pool in
            try await Migrator(migrations: [first]).migrate(pool)
            let edited = Migrator(migrations: [
                Migration(version: 1, name: "create_things", sql: "CREATE TABLE things (id bigint PRIMARY KEY);"),
                second,
            ])
            await #expect(throws: MigrationError.checksumMismatch(version: 1, name: "create_things")) {
                try await edited.migrate(pool)
            }
            #expect(try await edited.status(pool) == .mismatch(version: 1, name: "create_things"))
            #expect(try await Migrator(migrations: [first, second]).status(pool) == .pending(1))
        }
    }

    @Test func aFailingMigrationLeavesNoTrace() async throws {
        try await withPool { pool in
            let broken = Migration(
                version: 2, name: "broken", sql: "CREATE TABLE half (id int); SELECT * FROM nowhere;")
            await #expect(throws: PostgresError.self) { try await Migrator(migrations: [first, broken]).migrate(pool) }
            let tables = try await pool.withConnection { connection in
                try connection.query(
                    "SELECT to_regclass('things') IS NOT NULL AS things, to_regclass('half') IS NOT NULL AS half"
                )
                .rows[0]
            }
            #expect(try tables.bool("things") && !tables.bool("half"))
            #expect(try await Migrator(migrations: [first, broken]).status(pool) == .pending(1))
        }
    }

    @Test func concurrentMigratorsApplyEachMigrationOnce() async throws {
        try await withPool { pool in
            let other = PostgresPool(configuration: pool.configuration, logger: TestSupport.logger("pg-test"))
            // Slow enough that the two runs overlap.
            let slow = Migration(version: 3, name: "slow", sql: "SELECT pg_sleep(0.3); CREATE TABLE more (id int);")
            let migrator = Migrator(migrations: [first, second, slow])
            async let a = migrator.migrate(pool)
            async let b = migrator.migrate(other)
            let applied = try await [a, b].map(\.count).sorted()
            await other.shutdown()
            #expect(applied == [0, 3])
            #expect(try await migrator.status(pool) == .current)
        }
    }

    @Test func loadsNumberedFilesAndRejectsGapsAndDuplicates() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func write(_ name: String, _ sql: String = "SELECT 1;") throws {
            try sql.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try write("0002_second.sql", "SELECT 2;")
        try write("0001_first.sql")
        try write("README.md", "not a migration")
        let loaded = try Migrator.load(directory: directory)
        #expect(loaded.map(\.version) == [1, 2])
        #expect(loaded.map(\.name) == ["first", "second"])
        #expect(loaded[1].sql == "SELECT 2;")

        try write("0004_gap.sql")
        #expect(throws: MigrationError.missingVersion(3)) { try Migrator.load(directory: directory) }
        try write("0003_third.sql")
        try write("3_again.sql")
        #expect(throws: MigrationError.duplicateVersion(3)) { try Migrator.load(directory: directory) }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("3_again.sql"))
        try write("five.sql")
        #expect(throws: MigrationError.invalidFileName("five.sql")) { try Migrator.load(directory: directory) }
    }
}
