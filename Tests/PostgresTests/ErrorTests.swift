import Dispatch
import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct ErrorTests {
    @Test func constraintViolationsNameTheConstraint() async throws {
        try await withPool { pool in
            try await pool.withConnection { connection in
                try connection.execute(
                    """
                    CREATE TABLE parent (id int PRIMARY KEY);
                    CREATE TABLE child (id int CONSTRAINT child_id_key UNIQUE
                        CONSTRAINT child_positive CHECK (id > 0)
                        CONSTRAINT child_parent REFERENCES parent (id));
                    INSERT INTO parent VALUES (1);
                    INSERT INTO child VALUES (1);
                    """)
                #expect(throws: PostgresError.uniqueViolation(constraint: "child_id_key")) {
                    try connection.query("INSERT INTO child VALUES ($1)", [1])
                }
                #expect(throws: PostgresError.checkViolation(constraint: "child_positive")) {
                    try connection.query("INSERT INTO child VALUES ($1)", [-1])
                }
                #expect(throws: PostgresError.foreignKeyViolation(constraint: "child_parent")) {
                    try connection.query("INSERT INTO child VALUES ($1)", [2])
                }
                #expect(throws: PostgresError.server(sqlstate: "42P01", message: #"relation "nowhere" does not exist"#))
                {
                    try connection.query("SELECT * FROM nowhere")
                }
            }
        }
    }

    @Test func concurrentSerializableUpdatesFailToSerialize() async throws {
        try await withPool { pool in
            try await pool.withConnection {
                try $0.execute("CREATE TABLE t (id int PRIMARY KEY, n int); INSERT INTO t VALUES (1, 0)")
            }
            let firstRead = DispatchSemaphore(value: 0)
            let otherCommitted = DispatchSemaphore(value: 0)
            let first = Task {
                try await pool.withConnection { connection in
                    try connection.transaction { connection in
                        try connection.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
                        _ = try connection.query("SELECT n FROM t WHERE id = 1")
                        firstRead.signal()
                        otherCommitted.wait()
                        _ = try connection.query("UPDATE t SET n = n + 1 WHERE id = 1")
                    }
                }
            }
            async let other: Void = pool.withConnection { connection in
                firstRead.wait()
                _ = try connection.query("UPDATE t SET n = n + 10 WHERE id = 1")
                otherCommitted.signal()
            }
            try await other
            await #expect(throws: PostgresError.serializationFailure) { try await first.value }
        }
    }

    @Test func deadlocksAreDetected() async throws {
        try await withPool(PoolSettings(statementTimeout: .seconds(10))) { pool in
            try await pool.withConnection {
                try $0.execute("CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2)")
            }
            let locked = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            @Sendable func lockBoth(first: Int, second: Int, mine: DispatchSemaphore, theirs: DispatchSemaphore) async
                -> PostgresError?
            {
                do {
                    try await pool.withTransaction { connection in
                        try connection.execute("SET LOCAL deadlock_timeout = '50ms'")
                        _ = try connection.query("SELECT * FROM t WHERE id = $1 FOR UPDATE", [first])
                        mine.signal()
                        theirs.wait()
                        _ = try connection.query("SELECT * FROM t WHERE id = $1 FOR UPDATE", [second])
                    }
                    return nil
                } catch {
                    return error as? PostgresError ?? .decoding("\(error)")
                }
            }
            async let a = lockBoth(first: 1, second: 2, mine: locked.0, theirs: locked.1)
            async let b = lockBoth(first: 2, second: 1, mine: locked.1, theirs: locked.0)
            let outcomes = await [a, b]
            #expect(outcomes.filter { $0 == .deadlockDetected }.count == 1)
            #expect(outcomes.contains { $0 == nil })
        }
    }

    @Test func statementTimeoutIsADeadline() async throws {
        try await withPool(PoolSettings(statementTimeout: .milliseconds(200))) { pool in
            await #expect(throws: PostgresError.deadlineExceeded) {
                try await pool.withConnection { _ = try $0.query("SELECT pg_sleep(5)") }
            }
            #expect(await pool.ping(), "the connection survives a cancelled statement")
        }
    }

    @Test func terminatedMidStatementIsLostWithUnknownOutcome() async throws {
        try await withPool(PoolSettings(statementTimeout: .seconds(10))) { pool in
            let name = pool.configuration.applicationName
            let sleeper = Task { try await pool.withConnection { _ = try $0.query("SELECT pg_sleep(5)") } }
            // Terminate only once the statement runs on the server: before that the backend may
            // still be idle, and a kill then would not be "mid-statement".
            try await TestSupport.waitUntil("the statement runs", within: .seconds(5)) {
                try await pool.withConnection { connection in
                    try connection.query(
                        "SELECT count(*) = 1 AS running FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND query LIKE 'SELECT pg_sleep%'",
                        [name]
                    ).rows[0].bool("running")
                }
            }
            let terminated = try await pool.withConnection { connection in
                try connection.query(
                    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) AS n FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
                    [name]
                ).rows[0].int("n")
            }
            #expect(terminated == 1)
            await #expect(throws: PostgresError.connectionLost(outcomeUnknown: true)) { try await sleeper.value }
            #expect(await pool.ping(), "the pool replaces the lost connection")
        }
    }

    @Test func nothingListeningIsUnavailableFast() async throws {
        let port = try await TestSupport.freePort()
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: "postgresql://postgres@127.0.0.1:\(port)/postgres"),
            logger: TestSupport.logger("pg-test"))
        let (elapsed, error) = await measure { try await pool.withConnection { _ = try $0.query("SELECT 1") } }
        await pool.shutdown()
        #expect(error as? PostgresError == .unavailable)
        // A refused connect takes milliseconds; the bound leaves room for a busy two-core machine.
        #expect(elapsed < .seconds(5))
    }
}
