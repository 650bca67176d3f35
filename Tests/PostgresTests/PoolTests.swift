import Foundation
import NIOConcurrencyHelpers
import Postgres
import TestSupport
import Testing

@Suite struct PoolTests {
    @Test func exhaustedPoolTimesOutWithinTheWaitTimeout() async throws {
        try await withPool(PoolSettings(poolSize: 1, poolWaitTimeout: .milliseconds(200))) { pool in
            async let holder: Void = pool.withConnection { _ = try $0.query("SELECT pg_sleep(0.8)") }
            #expect(await eventually(within: .seconds(5)) { pool.statistics.inUse == 1 })
            let (elapsed, error) = await measure { try await pool.withConnection { _ = try $0.query("SELECT 1") } }
            #expect(error as? PostgresError == .poolTimeout)
            #expect(elapsed >= .milliseconds(200) && elapsed < .milliseconds(1500))
            try await holder
            #expect(pool.statistics == PoolStatistics(size: 1, inUse: 0, idle: 1, waiting: 0))
        }
    }

    @Test func everyWaiterTimesOutAndALaterQueueIsWatchedAgain() async throws {
        try await withPool(PoolSettings(poolSize: 1, poolWaitTimeout: .milliseconds(200))) { pool in
            // The second round queues after the first round's deadline watch has ended.
            for _ in 0..<2 {
                async let holder: Void = pool.withConnection { _ = try $0.query("SELECT pg_sleep(0.8)") }
                #expect(await eventually(within: .seconds(5)) { pool.statistics.inUse == 1 })
                let start = ContinuousClock.now
                let errors = await withTaskGroup(of: (any Error)?.self) { group in
                    for _ in 0..<3 {
                        group.addTask {
                            await measure { try await pool.withConnection { _ = try $0.query("SELECT 1") } }.error
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(errors.count == 3 && errors.allSatisfy { $0 as? PostgresError == .poolTimeout })
                #expect(ContinuousClock.now - start < .milliseconds(700))
                try await holder
                #expect(pool.statistics.waiting == 0)
            }
        }
    }

    @Test func neverHandsOneConnectionToTwoCallers() async throws {
        let inUse = InUseRegistry()
        let backends = try await withPool(PoolSettings(poolSize: 4, poolWaitTimeout: .seconds(30))) { pool in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<60 {
                    group.addTask {
                        try await pool.withConnection { connection in
                            let pid = try connection.query("SELECT pg_backend_pid() AS pid").rows[0].int("pid")
                            try inUse.enter(pid, ObjectIdentifier(connection))
                            defer { inUse.leave(pid, ObjectIdentifier(connection)) }
                            _ = try connection.query("SELECT pg_sleep(0.005)")
                            return pid
                        }
                    }
                }
                return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
            }
        }
        #expect(backends.count <= 4)
    }

    @Test func waitersAreServedWhenConnectionsFreeUp() async throws {
        try await withPool(PoolSettings(poolSize: 2, poolWaitTimeout: .seconds(10))) { pool in
            let results = try await withThrowingTaskGroup(of: Int.self) { group in
                for n in 0..<20 {
                    group.addTask {
                        try await pool.withConnection { try $0.query("SELECT $1::int AS n", [n]).rows[0].int("n") }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.sorted() == Array(0..<20))
            #expect(pool.statistics.waiting == 0 && pool.statistics.inUse == 0)
        }
    }

    @Test func preparedStatementsArePreparedOncePerConnection() async throws {
        let (values, prepared) = try await withPool { pool in
            try await pool.withConnection { connection in
                let sql = "SELECT $1::int * 2 AS doubled"
                let values = try (1...3).map { try connection.queryPrepared(sql, [$0]).rows[0].int("doubled") }
                let prepared = try connection.query("SELECT count(*) AS n FROM pg_prepared_statements").rows[0].int("n")
                return (values, prepared)
            }
        }
        #expect(values == [2, 4, 6])
        #expect(prepared == 1)
    }

    @Test func pipelineReturnsResultsInOrder() async throws {
        let results = try await withPool { pool in
            try await pool.withConnection { connection in
                try connection.execute("CREATE TABLE t (id int PRIMARY KEY)")
                return try connection.pipelineTransaction([
                    ("INSERT INTO t VALUES ($1)", [1]),
                    ("INSERT INTO t VALUES ($1), ($2)", [2, 3]),
                    ("SELECT count(*) AS n FROM t", []),
                ])
            }
        }
        #expect(results.map(\.affectedRows) == [1, 2, 1])
        #expect(try results[2].rows[0].int("n") == 3)
    }

    @Test func pipelineFailureRollsBackEverythingAndNamesTheStatement() async throws {
        try await withPool { pool in
            try await pool.withConnection { connection in
                try connection.execute("CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1)")
                #expect(throws: PipelineFailure(index: 1, error: .uniqueViolation(constraint: "t_pkey"))) {
                    try connection.pipelineTransaction([
                        ("INSERT INTO t VALUES ($1)", [2]),
                        ("INSERT INTO t VALUES ($1)", [1]),
                        ("INSERT INTO t VALUES ($1)", [3]),
                    ])
                }
                let ids = try connection.query("SELECT id FROM t ORDER BY id").rows.map { try $0.int("id") }
                #expect(ids == [1], "the connection is usable and nothing was committed")
            }
        }
    }

    @Test func pipelineEachFailsOnlyTheFailingStatement() async throws {
        try await withPool { pool in
            try await pool.withConnection { connection in
                let outcomes = try connection.pipelineEach([
                    ("SELECT 10 / $1::int AS n", [5]),
                    ("SELECT 10 / $1::int AS n", [0]),
                    ("SELECT 10 / $1::int AS n", [2]),
                    ("SELECT 10 / $1::int AS n", [0]),
                    ("SELECT 10 / $1::int AS n", [1]),
                ])
                let values = outcomes.map { outcome in (try? outcome.get()).map { try? $0.rows[0].int("n") } }
                #expect(values == [2, nil, 5, nil, 10])
                #expect(outcomes.filter { if case .failure = $0 { true } else { false } }.count == 2)
                #expect(try connection.query("SELECT 1 AS n").rows[0].int("n") == 1, "the connection is usable")
            }
        }
    }

    @Test func transactionsCommitOrRollBack() async throws {
        try await withPool { pool in
            try await pool.withConnection { try $0.execute("CREATE TABLE t (id int PRIMARY KEY)") }
            try await pool.withTransaction { _ = try $0.query("INSERT INTO t VALUES (1)") }
            await #expect(throws: PostgresError.uniqueViolation(constraint: "t_pkey")) {
                try await pool.withTransaction { connection in
                    _ = try connection.query("INSERT INTO t VALUES (2)")
                    _ = try connection.query("INSERT INTO t VALUES (1)")
                }
            }
            await #expect(
                throws: PostgresError.server(
                    sqlstate: "25P02", message: "a statement failed inside the transaction; it was rolled back")
            ) {
                try await pool.withTransaction { connection in
                    _ = try connection.query("INSERT INTO t VALUES (3)")
                    _ = try? connection.query("INSERT INTO t VALUES (1)")
                }
            }
            try await pool.withConnection { _ = try $0.execute("BEGIN; INSERT INTO t VALUES (4)") }
            let ids = try await pool.withConnection {
                try $0.query("SELECT id FROM t ORDER BY id").rows.map { try $0.int("id") }
            }
            #expect(ids == [1], "a transaction left open by a caller is rolled back")
        }
    }

    @Test func shutdownMakesCallsUnavailable() async throws {
        let database = try await TestDatabase.create(migrations: [])
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: database.url), logger: TestSupport.logger("pg-test"))
        #expect(await pool.ping())
        await pool.shutdown()
        await #expect(throws: PostgresError.unavailable) { try await pool.withConnection { _ in } }
        #expect(await !pool.ping())
        await database.drop()
    }
}

/// Which backends and connection objects callers hold right now; entering one that is held is a bug.
private final class InUseRegistry: Sendable {
    private let held = NIOLockedValueBox((pids: Set<Int>(), connections: Set<ObjectIdentifier>()))

    struct DoubleUse: Error {}

    func enter(_ pid: Int, _ connection: ObjectIdentifier) throws {
        try held.withLockedValue { held in
            guard held.pids.insert(pid).inserted, held.connections.insert(connection).inserted else {
                throw DoubleUse()
            }
        }
    }

    func leave(_ pid: Int, _ connection: ObjectIdentifier) {
        held.withLockedValue { held in
            held.pids.remove(pid)
            held.connections.remove(connection)
        }
    }
}
