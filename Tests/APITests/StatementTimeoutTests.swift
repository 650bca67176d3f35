import Postgres
import TestSupport
import Testing

/// A statement timeout inside a SIP registration or an import batch is the database being slow:
/// 503 with Retry-After and nothing committed, never a 500.
@Suite("Statement timeouts on multi-statement writes")
struct StatementTimeoutTests {
    /// Runs `body` while a session of the test's own holds `lock` inside a transaction that also
    /// holds whatever `hold` locks; the transaction ends once `body` is done.
    static func whileHeld(
        _ hold: String, by server: TestServer, _ body: () async throws -> Void
    ) async throws {
        var configuration = PostgresConfiguration(url: server.pool.configuration.url)
        configuration.poolSize = 1
        configuration.statementTimeout = .seconds(30)
        let gate = PostgresPool(configuration: configuration, logger: TestSupport.logger("timeout-gate"))
        let holder = PostgresPool(configuration: configuration, logger: TestSupport.logger("timeout-holder"))
        let result = await Result.of {
            _ = try await gate.withConnection {
                try $0.query("SELECT pg_advisory_lock(hashtextextended('timeout-gate', 0))")
            }
            let holding = Task {
                try await holder.withConnection { connection in
                    try connection.execute("BEGIN")
                    _ = try connection.query(hold)
                    _ = try connection.query("SELECT pg_advisory_xact_lock(hashtextextended('timeout-gate', 0))")
                    try connection.execute("COMMIT")
                }
            }
            try await SIPRaceTests.waitForLockWaits(1, pool: server.pool)
            let outcome = await Result.of { try await body() }
            await gate.shutdown()
            try await holding.value
            try outcome.get()
        }
        await gate.shutdown()
        await holder.shutdown()
        try result.get()
    }

    @Test func aSIPRegistrationThatTimesOutIs503() async throws {
        try await withDeviceServer { server in
            // register_device() takes the user's advisory lock; holding it outlasts the 1 s timeout.
            try await Self.whileHeld("SELECT pg_advisory_xact_lock(hashtextextended('dave', 0))", by: server) {
                let response = try await server.request(
                    "POST", "/v1/users/dave/devices/sip", json: ["contact": SIPRaceTests.contact])
                #expect(response.status == 503, "\(response.body)")
                #expect(response.header("Retry-After") != nil)
            }
            #expect(try await server.tokens(of: "dave").isEmpty)
        }
    }

    @Test func anImportBatchThatTimesOutIs503() async throws {
        try await withDeviceServer { server in
            #expect(try await server.register(user: "erin", token: Tokens.apns(300)).status == 201)
            try await Self.whileHeld("SELECT 1 FROM devices WHERE user_id = 'erin' FOR UPDATE", by: server) {
                let body = [Tokens.apns(301), Tokens.apns(300)].map { token in
                    #"{"user_id":"frank","provider":"ios","type":"apns","token":"\#(token)"}"#
                }.joined(separator: "\n")
                let response = try await server.request(
                    "POST", "/v1/devices/import", body: body, contentType: "application/x-ndjson")
                #expect(response.status == 503, "\(response.body)")
                #expect(response.header("Retry-After") != nil)
            }
            #expect(try await server.tokens(of: "frank").isEmpty)
        }
    }
}
