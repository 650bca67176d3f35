import Foundation
import Postgres
import TestSupport
import Testing

/// Migrations that never stall traffic: a lock wait bounded by `lock_timeout` and retried, and
/// indexes built `CONCURRENTLY` outside a transaction.
@Suite struct MigrationLockTests {
    let items = Migration(
        version: 1, name: "items",
        sql: "CREATE TABLE items (id int PRIMARY KEY, code text); INSERT INTO items VALUES (1, 'x'), (2, 'x');")

    /// A long transaction holds a lock the migration's ALTER TABLE needs. The migration gives up
    /// within its lock timeout (so writes queued behind it go through), says so, retries, and
    /// applies once the transaction ends.
    @Test func aMigrationBlockedByALongTransactionGivesUpRetriesAndLetsWritesThrough() async throws {
        try await withPool { pool in
            try await Migrator(migrations: [items]).migrate(pool)
            let logs = CapturedLogs()
            let migrating = PostgresPool(configuration: pool.configuration, logger: logs.logger(label: "migrator"))
            var migrator = Migrator(migrations: [
                items, Migration(version: 2, name: "add_note", sql: "ALTER TABLE items ADD COLUMN note text;"),
            ])
            migrator.lockTimeout = .milliseconds(100)
            migrator.retryDelay = .milliseconds(20)
            migrator.maxRetryDelay = .milliseconds(50)

            let lock = try await HeldLock.hold("SELECT count(*) FROM items", url: pool.configuration.url)
            let migration = Task { try await migrator.migrate(migrating) }
            try await TestSupport.waitUntil("two lock waits given up") {
                logs.all.count { $0.message.contains("gave up waiting for a lock") } >= 2
            }
            // A write while the migration keeps trying: queued behind its ALTER at most for the
            // lock timeout, then through, well within its own 1 s statement timeout.
            for id in 3...5 {
                _ = try await pool.withConnection { try $0.query("INSERT INTO items VALUES ($1, 'w')", [id]) }
            }
            #expect(try await migrator.status(pool) == .pending(1))
            let retry = try #require(logs.all.first { $0.message.contains("gave up waiting for a lock") })
            #expect(retry.level == .warning)
            #expect(retry.metadata["version"] == "2" && retry.metadata["lock_timeout_ms"] == "100")

            try await lock.release()
            #expect(try await migration.value.map(\.version) == [2])
            #expect(try await migrator.status(pool) == .current)
            await migrating.shutdown()
        }
    }

    /// A `CREATE INDEX CONCURRENTLY` that failed left an INVALID index of the same name: the
    /// migration (outside a transaction, by its first line) drops it and builds it afresh.
    @Test func anIndexBuiltConcurrentlyReplacesTheInvalidOneAFailedRunLeft() async throws {
        try await withPool { pool in
            try await Migrator(migrations: [items]).migrate(pool)
            let build = "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS items_code ON items (code)"
            await #expect(throws: PostgresError.self) {
                try await pool.withConnection { try $0.execute(build) }
            }
            #expect(try await Self.indexValid("items_code", pool) == false, "the failed build left it INVALID")
            _ = try await pool.withConnection { try $0.query("UPDATE items SET code = 'y' WHERE id = 2") }

            let concurrent = Migration(
                version: 2, name: "items_code", sql: "\(Migration.noTransactionMarker)\n\(build);\n")
            #expect(!concurrent.runsInTransaction && items.runsInTransaction)
            let migrator = Migrator(migrations: [items, concurrent])
            #expect(try await migrator.migrate(pool).map(\.version) == [2])
            #expect(try await Self.indexValid("items_code", pool) == true)
            #expect(try await migrator.status(pool) == .current)
        }
    }

    static func indexValid(_ name: String, _ pool: PostgresPool) async throws -> Bool? {
        try await pool.withConnection { connection in
            try connection.query(
                "SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1",
                [name]
            ).rows.first.map { try $0.bool("valid") }
        }
    }
}
