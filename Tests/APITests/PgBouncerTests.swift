import Foundation
import NIOConcurrencyHelpers
import Postgres
import Store
import TestSupport
import Testing

/// What only a real PgBouncer in transaction pooling mode shows: run by `scripts/pgbouncer-check`,
/// which starts one and sets `TEST_DATABASE_SERVE_URL` (the rest of the API suite then runs
/// through it too). Skipped otherwise.
@Suite(
    "Through PgBouncer in transaction pooling mode",
    .enabled(if: ProcessInfo.processInfo.environment["TEST_DATABASE_SERVE_URL"] != nil))
struct PgBouncerTests {
    /// A migrated database and its configurations: straight to PostgreSQL, and through PgBouncer.
    static func withDatabase(
        _ body: (_ direct: PostgresConfiguration, _ pooled: PostgresConfiguration) async throws -> Void
    )
        async throws
    {
        let database = try await TestDatabase.create()
        let direct = PostgresConfiguration(url: database.url, poolSize: 1)
        let result = await Result.of {
            let pooled = try #require(TestSupport.throughPooler(direct))
            try await body(direct, pooled)
        }
        await database.drop()
        try result.get()
    }

    static func withPool<T>(_ configuration: PostgresConfiguration, _ body: (PostgresPool) async throws -> T)
        async throws -> T
    {
        let pool = PostgresPool(configuration: configuration, logger: TestSupport.logger("pgbouncer"))
        let result = await Result.of { try await body(pool) }
        await pool.shutdown()
        return try result.get()
    }

    @Test func aConnectionKnowsWhetherAPoolerStandsInBetween() async throws {
        try await Self.withDatabase { direct, pooled in
            let directly = try await Self.withPool(direct) { try await $0.withConnection { $0.isBehindPooler } }
            let throughPgBouncer = try await Self.withPool(pooled) { try await $0.withConnection { $0.isBehindPooler } }
            #expect(!directly)
            #expect(throughPgBouncer)
        }
    }

    /// Two clients take turns on PgBouncer's one idle server session. With named statements the
    /// second one's `s1` collides with the first one's (or is missing); unnamed, both work.
    @Test(arguments: [PreparedStatements.auto, .off, .on])
    func preparedStatementsAcrossTransactions(_ mode: PreparedStatements) async throws {
        try await Self.withDatabase { _, pooled in
            var configuration = pooled
            configuration.preparedStatements = mode
            try await Self.withPool(configuration) { first in
                try await Self.withPool(configuration) { second in
                    let outcome = await Result.of {
                        for round in 1...5 {
                            let one = try await first.withConnection {
                                try $0.queryPrepared("SELECT $1::int + 1 AS n", [round]).rows[0].int("n")
                            }
                            let two = try await second.withConnection {
                                try $0.queryPrepared("SELECT $1::int * 2 AS n", [round]).rows[0].int("n")
                            }
                            #expect(one == round + 1 && two == round * 2)
                        }
                    }
                    if mode == .on {
                        #expect(throws: PostgresError.self) { try outcome.get() }
                    } else {
                        try outcome.get()
                    }
                }
            }
        }
    }

    /// No session setting survives PgBouncer, so the timeout is set in each transaction: alone, in
    /// a transaction, and in both kinds of pipeline.
    @Test func theStatementTimeoutHoldsInEveryTransaction() async throws {
        try await Self.withDatabase { _, pooled in
            var configuration = pooled
            configuration.statementTimeout = .milliseconds(200)
            try await Self.withPool(configuration) { pool in
                func expectTimeout(_ body: @escaping @Sendable (PostgresConnection) throws -> Void) async {
                    await #expect(throws: PostgresError.deadlineExceeded) {
                        do { try await pool.withConnection(body) } catch let failure as PipelineFailure {
                            throw failure.error
                        }
                    }
                }
                await expectTimeout { _ = try $0.query("SELECT pg_sleep(1)") }
                await expectTimeout { _ = try $0.queryPrepared("SELECT pg_sleep(1)") }
                await expectTimeout { connection in
                    _ = try connection.transaction { try $0.query("SELECT pg_sleep(1)") }
                }
                await expectTimeout { _ = try $0.pipelineTransaction([("SELECT pg_sleep(1)", [])]) }
                await expectTimeout { _ = try $0.pipelineEach([("SELECT pg_sleep(1)", [])])[0].get() }
                let timeout = try await pool.withConnection {
                    try $0.query("SHOW statement_timeout").rows[0].string("statement_timeout")
                }
                #expect(timeout == "200ms")
            }
        }
    }

    @Test func migrationsRefuseAPoolerAndTheListenerStaysOff() async throws {
        try await Self.withDatabase { _, pooled in
            try await Self.withPool(pooled) { pool in
                let migrator = Migrator(migrations: try Migrator.load(directory: RepositoryPaths.migrations))
                await #expect(throws: MigrationError.behindPooler) { try await migrator.migrate(pool) }
            }
            let logs = CapturedLogs()
            let events = EventLog()
            let changes = APIKeyChanges(configuration: pooled, logger: logs.logger(label: "keys")) { events.append($0) }
            let listening = Task { await changes.run() }
            try await TestSupport.waitUntil("the key cache turning off") { logs.joined.contains("API key cache off") }
            listening.cancel()
            await listening.value
            #expect(events.all.isEmpty, "never .listening, so nothing is cached")
        }
    }

    /// `serve` with DATABASE_URL through PgBouncer: it refuses to migrate there, migrates over
    /// DATABASE_LISTEN_URL when given, and serves.
    @Test func serveMigratesOnlyStraightAtPostgreSQL() async throws {
        let database = try await TestDatabase.create(migrations: [])
        let result = await Result.of {
            let pooled = try #require(TestSupport.throughPooler(PostgresConfiguration(url: database.url))).url
            let refused = try await RegistryProcess.run(
                ["serve"], environment: ["DATABASE_URL": pooled, "PORT": "0"], timeout: .seconds(20))
            #expect(refused.code != 0)
            #expect(refused.stderr.joined().contains("DATABASE_LISTEN_URL"), "\(refused.stderr)")

            let (server, port) = try await ProcessTests.serve(pooled, ["DATABASE_LISTEN_URL": database.url])
            #expect(try await ProcessTests.get(port, "/readyz").status == 200)
            server.signal(SIGTERM)
            try await server.waitForExit(within: .seconds(15))
            #expect(server.exitCode == 0)
        }
        await database.drop()
        try result.get()
    }

    /// Without DATABASE_LISTEN_URL the key cache is off, says so, and a revocation made elsewhere
    /// still takes effect at once: every request reads its key.
    @Test func withoutAListenURLEveryRequestReadsItsKey() async throws {
        let database = try await TestDatabase.create()
        let result = await Result.of {
            let pooled = try #require(TestSupport.throughPooler(PostgresConfiguration(url: database.url))).url
            let environment = ["DATABASE_URL": pooled]
            let created = try await RegistryProcess.run(
                ["keys", "create", "--name", "ops", "--scope", "admin"], environment: environment)
            let key = try #require(created.stdout.first)
            let (server, port) = try await ProcessTests.serve(pooled, ["SKIP_MIGRATIONS": "true"])
            _ = try await server.waitForLine { $0.contains("API key cache off") }
            for _ in 1...3 { #expect(try await ProcessTests.get(port, "/v1/providers", key: key).status == 200) }
            let listed = try await RegistryProcess.run(["keys", "list"], environment: environment)
            let keyID = try #require(listed.stdout.dropFirst().first?.split(separator: "\t").first.map(String.init))
            #expect(try await RegistryProcess.run(["keys", "revoke", keyID], environment: environment).code == 0)
            #expect(try await ProcessTests.get(port, "/v1/providers", key: key).status == 401)
            server.signal(SIGTERM)
            try await server.waitForExit(within: .seconds(15))
        }
        await database.drop()
        try result.get()
    }
}

private final class EventLog: Sendable {
    private let events = NIOLockedValueBox<[APIKeyChanges.Event]>([])
    func append(_ event: APIKeyChanges.Event) { events.withLockedValue { $0.append(event) } }
    var all: [APIKeyChanges.Event] { events.withLockedValue { $0 } }
}
