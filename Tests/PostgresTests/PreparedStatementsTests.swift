import Postgres
import TestSupport
import Testing

/// `DATABASE_PREPARED_STATEMENTS` on a direct connection (PgBouncer's side is in
/// `scripts/pgbouncer-check`): off sends every statement unnamed, auto prepares since no pooler
/// stands in between, and the answers are the same either way.
@Suite("Prepared statements on or off")
struct PreparedStatementsTests {
    @Test(arguments: [PreparedStatements.auto, .on, .off])
    func everyKindOfStatementAnswersAndOnlyNamedOnesArePrepared(_ mode: PreparedStatements) async throws {
        let database = try await TestDatabase.create(migrations: [])
        var configuration = PostgresConfiguration(url: database.url, poolSize: 1)
        configuration.preparedStatements = mode
        let pool = PostgresPool(configuration: configuration, logger: TestSupport.logger("prepared"))
        let outcome = await Result.of {
            let (answers, prepared, pooled) = try await pool.withConnection { connection in
                let statement: PostgresStatement = ("SELECT $1::int + 1 AS n", [1])
                let answers = [
                    try connection.queryPrepared(statement.sql, statement.parameters).rows[0].int("n"),
                    try connection.pipelineEach([statement])[0].get().rows[0].int("n"),
                    try connection.pipelineTransaction([statement])[0].rows[0].int("n"),
                ]
                let prepared = try connection.query("SELECT count(*)::int AS n FROM pg_prepared_statements").rows[0]
                    .int("n")
                return (answers, prepared, connection.isBehindPooler)
            }
            #expect(answers == [2, 2, 2])
            #expect(!pooled)
            #expect(prepared == (mode == .off ? 0 : 1))
        }
        await pool.shutdown()
        await database.drop()
        try outcome.get()
    }
}
