import Postgres
import TestSupport
import Testing

@testable import Store

@Suite("Read batching")
struct ReadBatchTests {
    @Test func readsQueuedBehindABusyRunnerShareOneBatchAndEachGetsItsOwnRows() async throws {
        try await GroupCommitTests.withPool { pool in
            _ = try await pool.withConnection {
                try $0.query(
                    """
                    INSERT INTO devices (provider, token, type, user_id, environment, created_at, updated_at, last_seen_at)
                    SELECT 'ios', lpad(to_hex(n), 64, '0'), 'apns', 'u' || (n % 20), 'production', now(), now(), now()
                      FROM generate_series(0, 99) n
                    """)
            }
            let sizes = BatchSizes()
            let reads = ReadBatcher.make(pool: pool, maxRunners: 1, recordBatchSize: sizes.record)
            // The one runner is held on a lock until every other read is queued behind it.
            let gate = try await Gate.close(pool, key: "busy")
            let busy = Task {
                try await reads.submit(("SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))", ["busy"]))
            }
            try await TestSupport.waitUntil("the runner took the busy read") { sizes.all == [1] }
            let counts = try await withThrowingTaskGroup(of: (String, Int).self) { group in
                for user in (0..<20).map({ "u\($0)" }) + ["nobody"] {
                    group.addTask {
                        let result = try await reads.submit(
                            ("SELECT count(*)::int AS n FROM devices WHERE user_id = $1", [user]))
                        return (user, try result.rows[0].int("n"))
                    }
                }
                try await TestSupport.waitUntil("every read queued") { reads.waiting == 21 }
                try await gate.open()
                return try await group.reduce(into: [String: Int]()) { $0[$1.0] = $1.1 }
            }
            _ = try await busy.value
            #expect(counts.count == 21 && counts["nobody"] == 0)
            #expect((0..<20).allSatisfy { counts["u\($0)"] == 5 })
            #expect(sizes.all == [1, 21], "one read alone, then the 21 that queued behind it")
        }
    }
}
