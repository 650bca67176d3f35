import Foundation
import Postgres
import TestSupport
import Testing

/// `device-registry prune` deletes call events past their history's retention, in batches, and
/// leaves the recent ones.
@Suite struct CallEventPruneTests {
    @Test func pruneDeletesCallEventsOlderThanTheirRetention() async throws {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: database.url, poolSize: 1), logger: TestSupport.logger("prune"))
        let outcome = await Result.of {
            _ = try await pool.withConnection { connection in
                try connection.query(
                    """
                    INSERT INTO call_events (id, digest, type, state, deadline, result, created_at, finished_at)
                    SELECT 'evt_' || n, repeat('0', 64), 'call.ring', 'done', now(), '[]',
                           now() - make_interval(days => n), now()
                      FROM generate_series(0, 9) n
                    """)
            }
            let pruned = try await RegistryProcess.run(
                ["prune", "--call-events-kept-for", "7d", "--batch-size", "2"],
                environment: ["DATABASE_URL": database.url])
            #expect(pruned.code == 0, "\(pruned.stderr)")
            // Days 7 (by the moments since the insert), 8 and 9, over two batches.
            #expect(pruned.stdout.contains("Pruned 3 call events older than 7d."), "\(pruned.stdout)")
            let left = try await pool.withConnection { connection in
                try connection.query("SELECT count(*)::int AS n FROM call_events").rows[0].int("n")
            }
            #expect(left == 7)
        }
        await pool.shutdown()
        await database.drop()
        try outcome.get()
    }
}
